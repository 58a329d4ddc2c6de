#include "common/kernels/elementwise.hpp"

#include <string>

#include "common/kernels/complex_functors.hpp"
#include "common/kernels/functors.hpp"
#include "common/kernels/philox.hpp"
#include "common/kernels/strided.hpp"
#include "common/kernels/tensor.hpp"
#include "common/kernels/vector_math.hpp"

namespace cudabridge::nv::kernels {

namespace {

using detail::strided_plan;

template <class T>
T* at(const tensor_view& t, std::int64_t off) {
    return static_cast<T*>(t.data) + off;
}

bool same_shape(const tensor_view& t, const shape_t& s) {
    if (t.ndim != s.ndim) return false;
    for (int i = 0; i < s.ndim; ++i)
        if (t.shape[i] != s.dims[i]) return false;
    return true;
}

cb_status check_out(const char* what, const tensor_view& out, cb_dtype dtype, const shape_t& shape,
                    std::string& error) {
    if (out.data == nullptr && numel(out) != 0)
        return fail(error, CB_ERR_INVALID_ARGUMENT, std::string(what) + ": output has no data");
    if (out.dtype != dtype)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string(what) + ": output dtype " + dtype_name(out.dtype) +
                        " does not match the result dtype " + dtype_name(dtype));
    if (!same_shape(out, shape))
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string(what) + ": output shape " + shape_string(out) + " does not match the result shape " +
                        shape_string(shape.ndim, shape.dims));
    return CB_OK;
}

cb_status check_view(const char* what, const tensor_view& t, std::string& error) {
    if (!is_valid_dtype(t.dtype)) return fail(error, CB_ERR_INVALID_ARGUMENT, std::string(what) + ": invalid dtype");
    if (t.ndim < 0 || t.ndim > k_max_dims)
        return fail(error, CB_ERR_INVALID_ARGUMENT, std::string(what) + ": bad ndim");
    for (int i = 0; i < t.ndim; ++i)
        if (t.shape[i] < 0) return fail(error, CB_ERR_INVALID_ARGUMENT, std::string(what) + ": negative dimension");
    return CB_OK;
}

shape_t shape_of(const tensor_view& t) {
    shape_t s;
    s.ndim = t.ndim;
    for (int i = 0; i < t.ndim; ++i) s.dims[i] = t.shape[i];
    return s;
}

// One typed row: the branches pick a loop whose pointers advance by 1 (or stay put for a
// broadcast scalar), which the compiler vectorizes.
template <class T, class R, class F>
void binary_row(const T* a, std::int64_t sa, const T* b, std::int64_t sb, R* o, std::int64_t so, std::int64_t n, F f) {
    if (so == 1) {
        R* po = o;
        if (sa == 1 && sb == 1) {
            const T* pa = a;
            const T* pb = b;
            for (std::int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
            return;
        }
        if (sa == 1 && sb == 0) {
            const T* pa = a;
            const T y = *b;
            for (std::int64_t i = 0; i < n; ++i) po[i] = f(pa[i], y);
            return;
        }
        if (sa == 0 && sb == 1) {
            const T x = *a;
            const T* pb = b;
            for (std::int64_t i = 0; i < n; ++i) po[i] = f(x, pb[i]);
            return;
        }
    }
    for (std::int64_t i = 0; i < n; ++i) o[i * so] = f(a[i * sa], b[i * sb]);
}

// One untyped row function per (op, dtype): the N-d walk below is compiled once, and only the
// typed row loops are instantiated per op and dtype.
using binary_row_fn = void (*)(const void* a, std::int64_t sa, const void* b, std::int64_t sb, void* o, std::int64_t so,
                               std::int64_t n);
using unary_row_fn = void (*)(const void* a, std::int64_t sa, void* o, std::int64_t so, std::int64_t n);

template <class T, class R, class F>
void binary_row_of(const void* a, std::int64_t sa, const void* b, std::int64_t sb, void* o, std::int64_t so,
                   std::int64_t n) {
    if constexpr (vector_math::has_row2<T, F>)
        if (so == 1 && vector_math::row2(*vector_math::vector_op2<F>, static_cast<const T*>(a), sa,
                                         static_cast<const T*>(b), sb, static_cast<R*>(o), n))
            return;
    binary_row<T, R>(static_cast<const T*>(a), sa, static_cast<const T*>(b), sb, static_cast<R*>(o), so, n, F{});
}

char* byte_at(const tensor_view& t, std::int64_t off) {
    return static_cast<char*>(t.data) + off * static_cast<std::int64_t>(dtype_size(t.dtype));
}

void run_binary_rows(binary_row_fn row, const tensor_view& a, const tensor_view& b, const tensor_view& out,
                     engine& eng) {
    const tensor_view* views[3] = {&out, &a, &b};
    strided_plan<3> plan(views);
    plan.run(eng, [&](const std::int64_t* off, std::int64_t n, const std::int64_t* st) {
        row(byte_at(a, off[1]), st[1], byte_at(b, off[2]), st[2], byte_at(out, off[0]), st[0], n);
    });
}

void run_unary_rows(unary_row_fn row, const tensor_view& a, const tensor_view& out, engine& eng) {
    const tensor_view* views[2] = {&out, &a};
    strided_plan<2> plan(views);
    plan.run(eng, [&](const std::int64_t* off, std::int64_t n, const std::int64_t* st) {
        row(byte_at(a, off[1]), st[1], byte_at(out, off[0]), st[0], n);
    });
}

template <class T, class R, class F>
void run_binary(const tensor_view& a, const tensor_view& b, const tensor_view& out, engine& eng) {
    run_binary_rows(&binary_row_of<T, R, F>, a, b, out, eng);
}

// One op -> functor table for every element type, complex included: the flags keep the (op, T)
// pairs the type rules refuse (complex orderings, bitwise ops of floats, ...) uninstantiated, so
// each type compiles exactly the loops it can be asked for.
template <class T>
void dispatch_binary(binary_op op, const tensor_view& a, const tensor_view& b, const tensor_view& out, engine& eng) {
    constexpr bool cx = fn::is_complex_v<T>;
    constexpr bool real = !cx;
    constexpr bool is_bool = std::is_same_v<T, bool>;
    constexpr bool is_float = std::is_floating_point_v<T>;
    switch (op) {
    case binary_op::add:
        return run_binary<T, T, fn::add>(a, b, out, eng);
    case binary_op::subtract:
        if constexpr (!is_bool) return run_binary<T, T, fn::subtract>(a, b, out, eng);
        return;
    case binary_op::multiply:
        return run_binary<T, T, fn::multiply>(a, b, out, eng);
    case binary_op::divide:
        if constexpr (is_float || cx) return run_binary<T, T, fn::divide>(a, b, out, eng);
        return;
    case binary_op::floor_divide:
        if constexpr (real && !is_bool) return run_binary<T, T, fn::floor_divide>(a, b, out, eng);
        return;
    case binary_op::minimum:
        if constexpr (real) return run_binary<T, T, fn::minimum>(a, b, out, eng);
        return;
    case binary_op::maximum:
        if constexpr (real) return run_binary<T, T, fn::maximum>(a, b, out, eng);
        return;
    case binary_op::power:
        if constexpr (cx) return run_binary<T, T, fn::complex_power>(a, b, out, eng);
        if constexpr (!cx && !is_bool) return run_binary<T, T, fn::power>(a, b, out, eng);
        return;
    case binary_op::arctan2:
        if constexpr (is_float) return run_binary<T, T, fn::arctan2>(a, b, out, eng);
        return;
    case binary_op::hypot:
        if constexpr (is_float) return run_binary<T, T, fn::hypot>(a, b, out, eng);
        return;
    case binary_op::copysign:
        if constexpr (is_float) return run_binary<T, T, fn::copysign>(a, b, out, eng);
        return;
    case binary_op::logaddexp:
        if constexpr (is_float) return run_binary<T, T, fn::logaddexp>(a, b, out, eng);
        return;
    case binary_op::logaddexp2:
        if constexpr (is_float) return run_binary<T, T, fn::logaddexp2>(a, b, out, eng);
        return;
    case binary_op::fmod:
        if constexpr (real && !is_bool) return run_binary<T, T, fn::fmod>(a, b, out, eng);
        return;
    case binary_op::remainder:
        if constexpr (real && !is_bool) return run_binary<T, T, fn::remainder>(a, b, out, eng);
        return;
    case binary_op::fmax:
        if constexpr (real) return run_binary<T, T, fn::fmax>(a, b, out, eng);
        return;
    case binary_op::fmin:
        if constexpr (real) return run_binary<T, T, fn::fmin>(a, b, out, eng);
        return;
    case binary_op::bitwise_and:
        if constexpr (real && !is_float) return run_binary<T, T, fn::bitwise_and>(a, b, out, eng);
        return;
    case binary_op::bitwise_or:
        if constexpr (real && !is_float) return run_binary<T, T, fn::bitwise_or>(a, b, out, eng);
        return;
    case binary_op::bitwise_xor:
        if constexpr (real && !is_float) return run_binary<T, T, fn::bitwise_xor>(a, b, out, eng);
        return;
    case binary_op::left_shift:
        if constexpr (real && !is_float && !is_bool) return run_binary<T, T, fn::left_shift>(a, b, out, eng);
        return;
    case binary_op::right_shift:
        if constexpr (real && !is_float && !is_bool) return run_binary<T, T, fn::right_shift>(a, b, out, eng);
        return;
    case binary_op::logical_and:
        return run_binary<T, bool, fn::logical_and>(a, b, out, eng);
    case binary_op::logical_or:
        return run_binary<T, bool, fn::logical_or>(a, b, out, eng);
    case binary_op::logical_xor:
        return run_binary<T, bool, fn::logical_xor>(a, b, out, eng);
    case binary_op::equal:
        return run_binary<T, bool, fn::equal>(a, b, out, eng);
    case binary_op::not_equal:
        return run_binary<T, bool, fn::not_equal>(a, b, out, eng);
    case binary_op::less:
        if constexpr (real) return run_binary<T, bool, fn::less>(a, b, out, eng);
        return;
    case binary_op::less_equal:
        if constexpr (real) return run_binary<T, bool, fn::less_equal>(a, b, out, eng);
        return;
    case binary_op::greater:
        if constexpr (real) return run_binary<T, bool, fn::greater>(a, b, out, eng);
        return;
    case binary_op::greater_equal:
        if constexpr (real) return run_binary<T, bool, fn::greater_equal>(a, b, out, eng);
        return;
    }
}

// out = F(in) elementwise; the functor's return type is the output's element type.
template <class T, class F>
void unary_row_of(const void* in, std::int64_t si, void* out, std::int64_t so, std::int64_t n) {
    using R = decltype(F{}(T{}));
    const T* x = static_cast<const T*>(in);
    R* o = static_cast<R*>(out);
    if (so == 1 && si == 1) {
        if constexpr (vector_math::has_row<T, F>)
            if (vector_math::row(*vector_math::vector_op<F>, x, o, n)) return;
        if constexpr (std::is_same_v<T, bool>) {  // GCC vectorizes bytes tested against 0, not bool loads
            const auto* bytes = static_cast<const unsigned char*>(in);
            for (std::int64_t i = 0; i < n; ++i) o[i] = F{}(static_cast<bool>(bytes[i]));
            return;
        }
        for (std::int64_t i = 0; i < n; ++i) o[i] = F{}(x[i]);
    } else {
        for (std::int64_t i = 0; i < n; ++i) o[i * so] = F{}(x[i * si]);
    }
}

template <class T, class F>
void run_unary(const tensor_view& a, const tensor_view& out, engine& eng) {
    run_unary_rows(&unary_row_of<T, F>, a, out, eng);
}

// One op -> functor table for every input type T, as dispatch_binary: complex inputs take the
// complex_ functors where numpy's complex loop differs, and only the (op, T) pairs the type rules
// accept are instantiated.
template <class T>
void dispatch_unary(unary_op op, const tensor_view& a, const tensor_view& out, engine& eng) {
    constexpr bool cx = fn::is_complex_v<T>;
    constexpr bool real = !cx;
    constexpr bool is_bool = std::is_same_v<T, bool>;
    constexpr bool is_float = std::is_floating_point_v<T>;
    constexpr bool floating = fn::takes_float_function_v<T>;
    switch (op) {
#define CB_NV_FLOAT_CASE(NAME)                                              \
    case unary_op::NAME:                                                    \
        if constexpr (floating) return run_unary<T, fn::NAME>(a, out, eng); \
        return;
        CB_NV_FLOAT_CASE(expm1)
        CB_NV_FLOAT_CASE(exp2)
        CB_NV_FLOAT_CASE(log1p)
        CB_NV_FLOAT_CASE(log2)
        CB_NV_FLOAT_CASE(cbrt)
        CB_NV_FLOAT_CASE(floor)
        CB_NV_FLOAT_CASE(ceil)
        CB_NV_FLOAT_CASE(trunc)
        CB_NV_FLOAT_CASE(rint)
        CB_NV_FLOAT_CASE(deg2rad)
        CB_NV_FLOAT_CASE(rad2deg)
#undef CB_NV_FLOAT_CASE
// The functions of one value complex inputs compute too, with the same functor (functors.hpp).
#define CB_NV_FLOAT_OR_COMPLEX_CASE(NAME)                                         \
    case unary_op::NAME:                                                          \
        if constexpr (floating || cx) return run_unary<T, fn::NAME>(a, out, eng); \
        return;
        CB_NV_FLOAT_OR_COMPLEX_CASE(exp)
        CB_NV_FLOAT_OR_COMPLEX_CASE(log)
        CB_NV_FLOAT_OR_COMPLEX_CASE(log10)
        CB_NV_FLOAT_OR_COMPLEX_CASE(sqrt)
        CB_NV_FLOAT_OR_COMPLEX_CASE(sin)
        CB_NV_FLOAT_OR_COMPLEX_CASE(cos)
        CB_NV_FLOAT_OR_COMPLEX_CASE(tan)
        CB_NV_FLOAT_OR_COMPLEX_CASE(arcsin)
        CB_NV_FLOAT_OR_COMPLEX_CASE(arccos)
        CB_NV_FLOAT_OR_COMPLEX_CASE(arctan)
        CB_NV_FLOAT_OR_COMPLEX_CASE(sinh)
        CB_NV_FLOAT_OR_COMPLEX_CASE(cosh)
        CB_NV_FLOAT_OR_COMPLEX_CASE(tanh)
        CB_NV_FLOAT_OR_COMPLEX_CASE(arcsinh)
        CB_NV_FLOAT_OR_COMPLEX_CASE(arccosh)
        CB_NV_FLOAT_OR_COMPLEX_CASE(arctanh)
#undef CB_NV_FLOAT_OR_COMPLEX_CASE
// The ops complex inputs have their own loop for (fn::complex_NAME); real inputs take REAL_FN
// where REAL_OK.
#define CB_NV_COMPLEX_CASE(NAME, REAL_OK, REAL_FN)                                      \
    case unary_op::NAME:                                                                \
        if constexpr (cx) return run_unary<T, fn::complex_##NAME>(a, out, eng);         \
        if constexpr (real && (REAL_OK)) return run_unary<T, fn::REAL_FN>(a, out, eng); \
        return;
        CB_NV_COMPLEX_CASE(abs, true, absolute)
        CB_NV_COMPLEX_CASE(isnan, true, isnan)
        CB_NV_COMPLEX_CASE(isinf, true, isinf)
        CB_NV_COMPLEX_CASE(isfinite, true, isfinite)
#undef CB_NV_COMPLEX_CASE
    case unary_op::negate:
        if constexpr (!is_bool) return run_unary<T, fn::negate>(a, out, eng);
        return;
    case unary_op::square:
        return run_unary<T, fn::square>(a, out, eng);
    case unary_op::reciprocal:
        return run_unary<T, fn::reciprocal>(a, out, eng);
    case unary_op::sign:
        if constexpr (real && !is_bool) return run_unary<T, fn::sign>(a, out, eng);
        return;
    case unary_op::signbit:
        if constexpr (real) return run_unary<T, fn::signbit>(a, out, eng);
        return;
    case unary_op::logical_not:
        return run_unary<T, fn::logical_not>(a, out, eng);
    case unary_op::invert:
        if constexpr (real && !is_float) return run_unary<T, fn::invert>(a, out, eng);
        return;
    }
}

template <class To, class From>
struct cast_op {
    constexpr To operator()(From v) const { return fn::cast_value<To>(v); }
};

// The row loop converting `from` to `to`: a table lookup, not a walk instantiated per pair.
unary_row_fn cast_row(cb_dtype to, cb_dtype from) {
    return dispatch(to, [&](auto t) {
        return dispatch(from, [&](auto f) -> unary_row_fn {
            using To = typename decltype(t)::type;
            using From = typename decltype(f)::type;
            return &unary_row_of<From, cast_op<To, From>>;
        });
    });
}

// A contiguous copy of t converted to `dtype` (same shape): mixed-dtype operands are converted
// once up front so the arithmetic loops stay single-typed.
tensor converted(const tensor_view& t, cb_dtype dtype, engine& eng) {
    tensor r = tensor::uninitialized(dtype, t.ndim, t.shape);
    std::string ignored;  // same shape: the cast cannot fail
    (void)cast(t, r.view(), ignored, eng);
    return r;
}

// A float16 output is written as float32 first and rounded into `out` by finish(): the arithmetic
// loops never run in half precision (numpy's half loops compute in float too).
struct staged_output {
    tensor tmp;
    tensor_view view;
    const tensor_view& out;
    explicit staged_output(const tensor_view& o) : view(o), out(o) {
        if (o.dtype == CB_DTYPE_FLOAT16) {
            tmp = tensor::uninitialized(CB_DTYPE_FLOAT32, o.ndim, o.shape);
            view = tmp.view();
        }
    }
    cb_status finish(engine& eng) {
        std::string ignored;  // same shape: the cast cannot fail
        return view.data == out.data ? CB_OK : cast(view, out, ignored, eng);
    }
};

template <class T>
T scalar_as(const scalar& s) {
    return s.is_int ? fn::cast_value<T>(s.i) : fn::cast_value<T>(s.f);
}

}  // namespace

cb_status plan_binary(binary_op op, const tensor_view& a, const tensor_view& b, op_types& types, shape_t& shape,
                      std::string& error) {
    if (cb_status s = check_view(op_name(op), a, error); s != CB_OK) return s;
    if (cb_status s = check_view(op_name(op), b, error); s != CB_OK) return s;
    if (cb_status s = binary_types(op, a.dtype, b.dtype, types, error); s != CB_OK) return s;
    return broadcast_shapes(a, b, shape, error);
}

cb_status binary(binary_op op, const tensor_view& a, const tensor_view& b, const tensor_view& out, std::string& error,
                 engine& eng) {
    op_types types{};
    shape_t shape;
    if (cb_status s = plan_binary(op, a, b, types, shape, error); s != CB_OK) return s;
    if (cb_status s = check_out(op_name(op), out, types.result, shape, error); s != CB_OK) return s;
    if (numel(out) == 0) return CB_OK;
    // float16 computes in float32 and is rounded once, as numpy's half loops do.
    const cb_dtype work = types.compute == CB_DTYPE_FLOAT16 ? CB_DTYPE_FLOAT32 : types.compute;
    tensor ta, tb;
    tensor_view va = a, vb = b;
    if (a.dtype != work) {
        ta = converted(a, work, eng);
        va = ta.view();
    }
    if (b.dtype != work) {
        tb = converted(b, work, eng);
        vb = tb.view();
    }
    va = broadcast_to(va, shape);
    vb = broadcast_to(vb, shape);
    staged_output o(out);
    dispatch<false>(work, [&](auto tag) {
        using T = typename decltype(tag)::type;
        dispatch_binary<T>(op, va, vb, o.view, eng);
    });
    return o.finish(eng);
}

cb_status unary(unary_op op, const tensor_view& a, const tensor_view& out, std::string& error, engine& eng) {
    if (cb_status s = check_view(op_name(op), a, error); s != CB_OK) return s;
    op_types types{};
    if (cb_status s = unary_types(op, a.dtype, types, error); s != CB_OK) return s;
    if (cb_status s = check_out(op_name(op), out, types.result, shape_of(a), error); s != CB_OK) return s;
    if (numel(out) == 0) return CB_OK;
    if (a.dtype == CB_DTYPE_FLOAT16 || types.result == CB_DTYPE_FLOAT16) {
        // float16 in or out (exp of int8 is float16): the float32 loop on an exact float32 copy.
        tensor fa = converted(a, CB_DTYPE_FLOAT32, eng);
        staged_output o(out);
        dispatch_unary<float>(op, fa.view(), o.view, eng);
        return o.finish(eng);
    }
    dispatch<false>(a.dtype, [&](auto tag) { dispatch_unary<typename decltype(tag)::type>(op, a, out, eng); });
    return CB_OK;
}

cb_status cast(const tensor_view& in, const tensor_view& out, std::string& error, engine& eng) {
    if (cb_status s = check_view("cast", in, error); s != CB_OK) return s;
    if (cb_status s = check_view("cast", out, error); s != CB_OK) return s;
    shape_t shape;
    if (broadcast_shapes(in, out, shape, error) != CB_OK || !same_shape(out, shape))
        return fail(
            error, CB_ERR_INVALID_ARGUMENT,
            "could not broadcast input array from shape " + shape_string(in) + " into shape " + shape_string(out));
    if (numel(out) == 0) return CB_OK;
    tensor_view vin = broadcast_to(in, shape);
    run_unary_rows(cast_row(out.dtype, in.dtype), vin, out, eng);
    return CB_OK;
}

cb_status fill(const tensor_view& out, scalar value, std::string& error, engine& eng) {
    if (cb_status s = check_view("fill", out, error); s != CB_OK) return s;
    if (numel(out) == 0) return CB_OK;
    dispatch(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T v = scalar_as<T>(value);
        const tensor_view* views[1] = {&out};
        strided_plan<1> plan(views);
        plan.run(eng, [&](const std::int64_t* off, std::int64_t n, const std::int64_t* st) {
            T* o = at<T>(out, off[0]);
            for (std::int64_t i = 0; i < n; ++i) o[i * st[0]] = v;
        });
    });
    return CB_OK;
}

cb_status arange(const tensor_view& out, scalar start, scalar step, std::string& error, engine& eng) {
    if (cb_status s = check_view("arange", out, error); s != CB_OK) return s;
    if (!is_contiguous(out)) return fail(error, CB_ERR_INVALID_ARGUMENT, "arange: output must be contiguous");
    dispatch(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* o = static_cast<T*>(out.data);
        bool int_math = start.is_int && step.is_int && !fn::is_float_v<T>;
        eng.parallel_for(numel(out), 1 << 15, [&](std::int64_t b, std::int64_t e) {
            for (std::int64_t i = b; i < e; ++i)
                o[i] = int_math ? fn::arange_value_int<T>(start.i, step.i, i)
                                : fn::arange_value<T>(start.is_int ? double(start.i) : start.f,
                                                      step.is_int ? double(step.i) : step.f, i);
        });
    });
    return CB_OK;
}

cb_status random_uniform(const tensor_view& out, std::uint64_t seed, std::uint64_t offset, std::string& error,
                         engine& eng) {
    if (cb_status s = check_view("random_uniform", out, error); s != CB_OK) return s;
    if (out.dtype != CB_DTYPE_FLOAT32 && out.dtype != CB_DTYPE_FLOAT64)
        return fail(
            error, CB_ERR_UNSUPPORTED,
            std::string("random_uniform: dtype ") + dtype_name(out.dtype) + " is not supported (float32 or float64)");
    if (!is_contiguous(out)) return fail(error, CB_ERR_INVALID_ARGUMENT, "random_uniform: output must be contiguous");
    const std::int64_t n = numel(out);
    const bool f32 = out.dtype == CB_DTYPE_FLOAT32;
    const std::int64_t per_block = f32 ? 4 : 2;
    const std::int64_t blocks = (n + per_block - 1) / per_block;
    eng.parallel_for(blocks, 1 << 13, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t blk = b; blk < e; ++blk) {
            philox::u32x4 r = philox::block(seed, offset, std::uint64_t(blk));
            std::int64_t i0 = blk * per_block;
            if (f32) {
                float* o = static_cast<float*>(out.data);
                for (int j = 0; j < 4 && i0 + j < n; ++j) o[i0 + j] = philox::to_float(r.v[j]);
            } else {
                double* o = static_cast<double*>(out.data);
                for (int j = 0; j < 2 && i0 + j < n; ++j) o[i0 + j] = philox::to_double(r.v[2 * j], r.v[2 * j + 1]);
            }
        }
    });
    return CB_OK;
}

}  // namespace cudabridge::nv::kernels

#include "common/kernels/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/kernels/complex_functors.hpp"
#include "common/kernels/elementwise.hpp"
#include "common/kernels/functors.hpp"
#include "common/kernels/promotion.hpp"
#include "common/kernels/tensor.hpp"

namespace cudabridge::nv::kernels {

namespace {

// Reduces a contiguous run with kLanes independent accumulators, so the loop carries no single
// dependency chain and the compiler can keep the lanes in vector registers.
// max/min over a contiguous run: R::combine_ordered applied to 16-byte vectors (GCC's vector
// extension; the auto-vectorizer will not if-convert this select), plus a mask of the lanes that
// saw a NaN (v != v). Only then is the NaN-aware combine() rerun, so the result is exactly
// combine()'s; infinities need no rerun (an earlier x * 0 probe took them for NaN, and a 16M
// nanmax, whose NaNs become -inf, paid a scalar pass for it). Precondition: n >= 64.
template <class R, class T>
T reduce_ordered(const T* p, std::int64_t n) {
    typedef T vec __attribute__((vector_size(16)));
    using lanes = decltype(vec{} != vec{});     // integer lanes, all ones where true
    constexpr int kW = 16 / sizeof(T), kU = 4;  // elements per vector, vectors in flight
    constexpr bool check_nan = std::is_floating_point_v<T> && !requires { R::skips_nan; };
    vec m[kU];
    lanes nan_seen[kU] = {};
    for (int u = 0; u < kU; ++u) {
        std::memcpy(&m[u], p + u * kW, sizeof(vec));
        if constexpr (check_nan) nan_seen[u] = m[u] != m[u];
    }
    std::int64_t i = kW * kU;
    for (; i + kW * kU <= n; i += kW * kU)
        for (int u = 0; u < kU; ++u) {
            vec v;
            std::memcpy(&v, p + i + u * kW, sizeof(vec));
            m[u] = R::combine_ordered(m[u], v);
            if constexpr (check_nan) nan_seen[u] |= v != v;
        }
    T acc = m[0][0];
    bool suspect = false;
    for (int u = 0; u < kU; ++u)
        for (int w = 0; w < kW; ++w) {
            acc = R::combine_ordered(acc, m[u][w]);
            if constexpr (check_nan) suspect |= nan_seen[u][w] != 0;
        }
    for (; i < n; ++i) {
        acc = R::combine_ordered(acc, p[i]);
        if constexpr (check_nan) suspect |= std::isnan(p[i]);
    }
    if (!suspect) return acc;
    acc = p[0];
    for (std::int64_t k = 1; k < n; ++k) acc = R::combine(acc, p[k]);
    return acc;
}

// max / min of bools (numpy's any / all) stop at the first element that decides them, as numpy's
// loops do. all: glibc's vectorized memchr finds the first false. any: the first 4 KiB block that
// differs from zeros (any non-zero byte is true).
template <class R>
inline constexpr bool is_bool_extreme_v =
    std::is_same_v<R, fn::max_reducer<bool>> || std::is_same_v<R, fn::min_reducer<bool>>;

template <class R>
bool bool_extreme(const bool* p, std::int64_t n) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(p);
    if constexpr (std::is_same_v<R, fn::min_reducer<bool>>) return std::memchr(bytes, 0, std::size_t(n)) == nullptr;
    static constexpr unsigned char zeros[4096] = {};
    for (std::int64_t i = 0; i < n; i += std::int64_t(sizeof zeros))
        if (std::memcmp(bytes + i, zeros, std::size_t(std::min<std::int64_t>(sizeof zeros, n - i))) != 0) return true;
    return false;
}

template <class R, class T>
typename R::acc_t reduce_run(const T* p, std::int64_t n) {
    if constexpr (is_bool_extreme_v<R>) return bool_extreme<R>(p, n);
    using A = typename R::acc_t;
    constexpr int kLanes = 16;
    if constexpr (requires { typename R::run_t; }) {  // sums: lanes of runs, run totals combined
        using U = typename R::run_t;
        constexpr std::int64_t kRun = std::int64_t(kLanes) * R::run_length;
        A total = R::identity();
        std::int64_t i = 0;
        for (; i + kRun <= n; i += kRun) {
            U lane[kLanes] = {};
            for (int r = 0; r < R::run_length; ++r)
                for (int j = 0; j < kLanes; ++j) lane[j] = R::add_to_run(lane[j], p[i + r * kLanes + j]);
            for (int j = 0; j < kLanes; ++j) total = R::combine(total, static_cast<A>(lane[j]));
        }
        for (; i < n; ++i) total = R::combine(total, R::lift(p[i]));
        return total;
    }
    if constexpr (requires { R::combine_ordered(A{}, A{}); } && !std::is_same_v<T, bool>) {  // max/min
        if (n >= 64) return reduce_ordered<R>(p, n);
    }
    if (n < kLanes) {
        A acc = R::lift(p[0]);
        for (std::int64_t i = 1; i < n; ++i) acc = R::combine(acc, R::lift(p[i]));
        return acc;
    }
    A lane[kLanes];
    for (int j = 0; j < kLanes; ++j) lane[j] = R::lift(p[j]);
    std::int64_t i = kLanes;
    for (; i + kLanes <= n; i += kLanes)
        for (int j = 0; j < kLanes; ++j) lane[j] = R::combine(lane[j], R::lift(p[i + j]));
    for (; i < n; ++i) lane[0] = R::combine(lane[0], R::lift(p[i]));
    A acc = lane[0];
    for (int j = 1; j < kLanes; ++j) acc = R::combine(acc, lane[j]);
    return acc;
}

template <class R>
inline constexpr bool is_mean_v = false;
template <class T>
inline constexpr bool is_mean_v<fn::mean_reducer<T>> = true;
template <class T>
inline constexpr bool is_mean_v<fn::complex_mean_reducer<T>> = true;

template <class R, class T, class O>
O finish(typename R::acc_t acc, std::int64_t n) {
    using A = typename R::acc_t;
    if constexpr (is_mean_v<R>)
        return fn::cast_value<O>(acc / static_cast<A>(static_cast<double>(n)));
    else
        return fn::cast_value<O>(acc);
}

// out: R::out_t elements (the caller checked out.dtype against reduce_result_dtype).
template <class R, class T>
void run_reduce(const T* in, std::int64_t outer, std::int64_t n, std::int64_t inner, void* out_data, engine& eng) {
    using A = typename R::acc_t;
    using O = typename R::out_t;
    O* out = static_cast<O*>(out_data);
    if (n == 0) {  // only sum/prod/mean get here: their identity (mean: 0 / 0 = NaN)
        A none{};
        if constexpr (requires { R::identity(); }) none = R::identity();
        for (std::int64_t i = 0; i < outer * inner; ++i) out[i] = finish<R, T, O>(none, 0);
        return;
    }
    constexpr std::int64_t grain = 1 << 16;
    if (outer == 1 && inner == 1 && is_bool_extreme_v<R>) {  // one thread: it may stop at once
        out[0] = reduce_run<R>(in, n);
        return;
    }
    if (outer == 1 && inner == 1) {  // everything: per-chunk partials, combined in order
        std::int64_t parts = std::min<std::int64_t>(eng.threads(), (n + grain - 1) / grain);
        if (parts < 1) parts = 1;
        std::int64_t chunk = (n + parts - 1) / parts;
        parts = (n + chunk - 1) / chunk;
        std::vector<A> partial(static_cast<std::size_t>(parts));
        eng.parallel_for(parts, 1, [&](std::int64_t b, std::int64_t e) {
            for (std::int64_t c = b; c < e; ++c) {
                std::int64_t lo = c * chunk, hi = std::min(n, lo + chunk);
                partial[static_cast<std::size_t>(c)] = reduce_run<R>(in + lo, hi - lo);
            }
        });
        A acc = partial[0];
        for (std::size_t c = 1; c < partial.size(); ++c) acc = R::combine(acc, partial[c]);
        out[0] = finish<R, T, O>(acc, n);
        return;
    }
    if (inner == 1) {  // contiguous rows
        eng.parallel_for(outer, std::max<std::int64_t>(1, grain / n), [&](std::int64_t b, std::int64_t e) {
            for (std::int64_t o = b; o < e; ++o) out[o] = finish<R, T, O>(reduce_run<R>(in + o * n, n), n);
        });
        return;
    }
    // Reduce the middle axis: walk its rows, accumulating a block of the inner axis at a time.
    constexpr std::int64_t kBlock = 1024;
    const std::int64_t blocks = (inner + kBlock - 1) / kBlock;
    eng.parallel_for(outer * blocks, std::max<std::int64_t>(1, grain / (n * kBlock)),
                     [&](std::int64_t b, std::int64_t e) {
                         A acc[kBlock];
                         for (std::int64_t w = b; w < e; ++w) {
                             std::int64_t o = w / blocks, j0 = (w % blocks) * kBlock;
                             std::int64_t len = std::min(kBlock, inner - j0);
                             const T* base = in + o * n * inner + j0;
                             for (std::int64_t j = 0; j < len; ++j) acc[j] = R::lift(base[j]);
                             for (std::int64_t k = 1; k < n; ++k) {
                                 const T* row = base + k * inner;
                                 for (std::int64_t j = 0; j < len; ++j) acc[j] = R::combine(acc[j], R::lift(row[j]));
                             }
                             for (std::int64_t j = 0; j < len; ++j)
                                 out[o * inner + j0 + j] = finish<R, T, O>(acc[j], n);
                         }
                     });
}

// float16 reduces as float32 (exact copies; sums and means accumulate as float32's do, at least as
// accurately as numpy's float pairwise sum of halves) and is rounded once into the float16 result.
cb_status reduce_float16(reduce_op op, const tensor_view& in, int axis, const tensor_view& out, std::string& error,
                         engine& eng) {
    tensor wide(CB_DTYPE_FLOAT32, in.ndim, in.shape), result(CB_DTYPE_FLOAT32, out.ndim, out.shape);
    if (cb_status s = cast(in, wide.view(), error, eng); s != CB_OK) return s;
    if (cb_status s = reduce(op, wide.view(), axis, result.view(), error, eng); s != CB_OK) return s;
    return cast(result.view(), out, error, eng);
}

}  // namespace

cb_status plan_reduce(reduce_op op, const tensor_view& in, int axis, cb_dtype& dtype, shape_t& shape,
                      std::string& error) {
    if (!is_valid_dtype(in.dtype) || in.ndim < 0 || in.ndim > k_max_dims)
        return fail(error, CB_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": invalid input");
    if (is_complex_dtype(in.dtype) && is_ordered(op))
        return fail(error, CB_ERR_UNSUPPORTED,
                    std::string(op_name(op)) + ": " + dtype_name(in.dtype) +
                        " is not supported on the device (numpy orders complex numbers lexicographically)");
    dtype = reduce_result_dtype(op, in.dtype);
    shape = {};
    if (axis == k_all_axes) return CB_OK;
    int ax = axis < 0 ? axis + in.ndim : axis;
    if (ax < 0 || ax >= in.ndim)
        return fail(
            error, CB_ERR_INVALID_ARGUMENT,
            "axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(in.ndim));
    for (int i = 0; i < in.ndim; ++i)
        if (i != ax) shape.dims[shape.ndim++] = in.shape[i];
    return CB_OK;
}

cb_status reduce(reduce_op op, const tensor_view& in, int axis, const tensor_view& out, std::string& error,
                 engine& eng) {
    cb_dtype dtype{};
    shape_t shape;
    if (cb_status s = plan_reduce(op, in, axis, dtype, shape, error); s != CB_OK) return s;
    if (out.dtype != dtype || out.ndim != shape.ndim || !is_contiguous(out))
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string(op_name(op)) + ": output must be a contiguous " + dtype_name(dtype) +
                        " array of shape " + shape_string(shape.ndim, shape.dims));
    for (int i = 0; i < shape.ndim; ++i)
        if (out.shape[i] != shape.dims[i])
            return fail(error, CB_ERR_INVALID_ARGUMENT,
                        std::string(op_name(op)) + ": output shape " + shape_string(out) + " does not match " +
                            shape_string(shape.ndim, shape.dims));
    std::int64_t outer = 1, n = numel(in), inner = 1;
    if (axis != k_all_axes) {
        int ax = axis < 0 ? axis + in.ndim : axis;
        n = in.shape[ax];
        for (int i = 0; i < ax; ++i) outer *= in.shape[i];
        for (int i = ax + 1; i < in.ndim; ++i) inner *= in.shape[i];
    }
    if (n == 0 && is_ordered(op) && outer * inner > 0)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string("zero-size array to reduction operation ") + op_name(op) + " which has no identity");
    if (outer * inner == 0) return CB_OK;
    if (in.dtype == CB_DTYPE_FLOAT16) return reduce_float16(op, in, axis, out, error, eng);
    tensor copy;  // reductions walk contiguous memory; strided inputs are compacted once
    const tensor_view* src = &in;
    if (!is_contiguous(in)) {
        copy = tensor::uninitialized(in.dtype, in.ndim, in.shape);
        (void)cast(in, copy.view(), error, eng);  // same shape: cannot fail
        src = &copy.view();
    }
    dispatch<false>(in.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* p = static_cast<const T*>(src->data);
        void* o = out.data;
        if constexpr (fn::is_complex_v<T>) {  // no max/min: plan_reduce refuses them
            if (op == reduce_op::sum) return run_reduce<fn::complex_sum_reducer<T>, T>(p, outer, n, inner, o, eng);
            if (op == reduce_op::mean) return run_reduce<fn::complex_mean_reducer<T>, T>(p, outer, n, inner, o, eng);
            if (op == reduce_op::prod) return run_reduce<fn::complex_prod_reducer<T>, T>(p, outer, n, inner, o, eng);
        } else {
            switch (op) {
            case reduce_op::sum:
                return run_reduce<fn::sum_reducer<T>, T>(p, outer, n, inner, o, eng);
            case reduce_op::mean:
                return run_reduce<fn::mean_reducer<T>, T>(p, outer, n, inner, o, eng);
            case reduce_op::prod:
                return run_reduce<fn::prod_reducer<T>, T>(p, outer, n, inner, o, eng);
            case reduce_op::max:
                return run_reduce<fn::max_reducer<T>, T>(p, outer, n, inner, o, eng);
            case reduce_op::min:
                return run_reduce<fn::min_reducer<T>, T>(p, outer, n, inner, o, eng);
            case reduce_op::nanmax:
                return run_reduce<fn::nanmax_reducer<T>, T>(p, outer, n, inner, o, eng);
            case reduce_op::nanmin:
                return run_reduce<fn::nanmin_reducer<T>, T>(p, outer, n, inner, o, eng);
            }
        }
    });
    return CB_OK;
}

}  // namespace cudabridge::nv::kernels

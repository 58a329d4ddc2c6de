#include "common/kernels/promotion.hpp"

#include <algorithm>
#include <string>

namespace cudabridge::nv::kernels {

namespace {

cb_dtype signed_of_size(std::size_t bytes) {
    switch (bytes) {
    case 1:
        return CB_DTYPE_INT8;
    case 2:
        return CB_DTYPE_INT16;
    case 4:
        return CB_DTYPE_INT32;
    default:
        return CB_DTYPE_INT64;
    }
}
cb_dtype unsigned_of_size(std::size_t bytes) {
    switch (bytes) {
    case 1:
        return CB_DTYPE_UINT8;
    case 2:
        return CB_DTYPE_UINT16;
    case 4:
        return CB_DTYPE_UINT32;
    default:
        return CB_DTYPE_UINT64;
    }
}

// The smallest float a dtype casts to safely, numpy's rule for mixing with floats and for the
// floating-point functions: 0 = float16 (float16, bool, int8, uint8), 1 = float32 (float32, int16,
// uint16), 2 = float64 (float64 and the 32- and 64-bit integers).
int float_rank(cb_dtype d) {
    const std::size_t size = dtype_size(d);
    if (is_complex_dtype(d)) return size == 8 ? 1 : 2;  // its parts' float
    if (is_float_dtype(d)) return size == 2 ? 0 : (size == 4 ? 1 : 2);
    return size <= 1 ? 0 : (size == 2 ? 1 : 2);
}
cb_dtype float_of_rank(int r) {
    const cb_dtype f[] = {CB_DTYPE_FLOAT16, CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64};
    return f[r];
}

// numpy has no complex32: float16's rank gives complex64.
cb_dtype complex_of_rank(int r) { return r == 2 ? CB_DTYPE_COMPLEX128 : CB_DTYPE_COMPLEX64; }

// A signed and an unsigned integer: the smallest signed type holding both ranges (twice the
// unsigned width), float64 past int64 (numpy's uint64 + int64).
cb_dtype mixed_sign(cb_dtype s, cb_dtype u) {
    const std::size_t bytes = std::max(dtype_size(s), 2 * dtype_size(u));
    return bytes > 8 ? CB_DTYPE_FLOAT64 : signed_of_size(bytes);
}

cb_status no_loop(const char* op, const std::string& operands, std::string& error) {
    return fail(error, CB_ERR_UNSUPPORTED,
                std::string("ufunc '") + op + "' not supported for the input types (" + operands +
                    "), and the inputs could not be safely coerced to any supported types according to the "
                    "casting rule ''safe''");
}

// complex operands: the ops numpy has a complex loop for and the device computes. numpy refuses
// the rest (floor_divide, remainder, bitwise ops, ...); the orderings it defines lexicographically
// (maximum, less, ...) are not on the device: both CB_ERR_UNSUPPORTED.
cb_status complex_binary_types(binary_op op, cb_dtype p, const std::string& operands, op_types& out,
                               std::string& error) {
    out = {p, has_bool_result(op) ? CB_DTYPE_BOOL : p};
    switch (op) {
    case binary_op::add:
    case binary_op::subtract:
    case binary_op::multiply:
    case binary_op::divide:
    case binary_op::power:
    case binary_op::equal:
    case binary_op::not_equal:
    case binary_op::logical_and:
    case binary_op::logical_or:
    case binary_op::logical_xor:
        return CB_OK;
    case binary_op::minimum:
    case binary_op::maximum:
    case binary_op::fmax:
    case binary_op::fmin:
    case binary_op::less:
    case binary_op::less_equal:
    case binary_op::greater:
    case binary_op::greater_equal:
        return fail(error, CB_ERR_UNSUPPORTED,
                    std::string(op_name(op)) + ": " + operands +
                        " is not supported on the device (numpy orders complex numbers lexicographically)");
    default:
        return no_loop(op_name(op), operands, error);
    }
}

cb_status complex_unary_types(unary_op op, cb_dtype a, op_types& out, std::string& error) {
    out = {a, a};
    switch (op) {
    case unary_op::negate:
    case unary_op::square:
    case unary_op::reciprocal:
    case unary_op::exp:
    case unary_op::log:
    case unary_op::log10:
    case unary_op::sqrt:
    case unary_op::sin:
    case unary_op::cos:
    case unary_op::tan:
    case unary_op::arcsin:
    case unary_op::arccos:
    case unary_op::arctan:
    case unary_op::sinh:
    case unary_op::cosh:
    case unary_op::tanh:
    case unary_op::arcsinh:
    case unary_op::arccosh:
    case unary_op::arctanh:
        return CB_OK;
    case unary_op::abs:  // |z|: the parts' float
        out.result = a == CB_DTYPE_COMPLEX64 ? CB_DTYPE_FLOAT32 : CB_DTYPE_FLOAT64;
        return CB_OK;
    case unary_op::isnan:
    case unary_op::isinf:
    case unary_op::isfinite:
    case unary_op::logical_not:
        out.result = CB_DTYPE_BOOL;
        return CB_OK;
    case unary_op::floor:
    case unary_op::ceil:
    case unary_op::trunc:
    case unary_op::cbrt:
    case unary_op::deg2rad:
    case unary_op::rad2deg:
    case unary_op::signbit:
    case unary_op::invert:
        return no_loop(op_name(op), dtype_name(a), error);
    default:
        return fail(error, CB_ERR_UNSUPPORTED,
                    std::string(op_name(op)) + ": " + dtype_name(a) + " is not supported on the device yet");
    }
}

}  // namespace

cb_dtype promote(cb_dtype a, cb_dtype b) {
    if (a == b) return a;
    if (a == CB_DTYPE_BOOL) return b;
    if (b == CB_DTYPE_BOOL) return a;
    const std::size_t wide = std::max(dtype_size(a), dtype_size(b));
    if (is_complex_dtype(a) || is_complex_dtype(b))  // complex of the float that holds both
        return complex_of_rank(std::max(float_rank(a), float_rank(b)));
    if (is_float_dtype(a) || is_float_dtype(b))  // a float and the float that holds the other safely
        return float_of_rank(std::max(float_rank(a), float_rank(b)));
    if (is_unsigned_dtype(a) == is_unsigned_dtype(b))
        return is_unsigned_dtype(a) ? unsigned_of_size(wide) : signed_of_size(wide);
    return is_unsigned_dtype(a) ? mixed_sign(b, a) : mixed_sign(a, b);
}

cb_status binary_types(binary_op op, cb_dtype a, cb_dtype b, op_types& out, std::string& error) {
    if (!is_valid_dtype(a) || !is_valid_dtype(b))
        return fail(error, CB_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": invalid dtype");
    auto operands = [&] { return std::string(dtype_name(a)) + " and " + dtype_name(b); };
    cb_dtype p = promote(a, b);
    if (is_complex_dtype(p)) return complex_binary_types(op, p, operands(), out, error);
    out = {p, p};
    if (has_bool_result(op)) {
        out.result = CB_DTYPE_BOOL;
        return CB_OK;
    }
    if (is_float_function(op)) {
        const cb_dtype f = float_of_rank(std::max(float_rank(a), float_rank(b)));
        out = {f, f};
        return CB_OK;
    }
    switch (op) {
    case binary_op::divide:
        if (!is_float_dtype(p)) out = {CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64};
        break;
    case binary_op::floor_divide:
    case binary_op::power:
    case binary_op::fmod:
    case binary_op::remainder:
        if (p == CB_DTYPE_BOOL) out = {CB_DTYPE_INT8, CB_DTYPE_INT8};
        break;
    case binary_op::left_shift:
    case binary_op::right_shift:
        if (is_float_dtype(p)) return no_loop(op_name(op), operands(), error);
        if (p == CB_DTYPE_BOOL) out = {CB_DTYPE_INT8, CB_DTYPE_INT8};
        break;
    case binary_op::bitwise_and:
    case binary_op::bitwise_or:
    case binary_op::bitwise_xor:
        if (is_float_dtype(p)) return no_loop(op_name(op), operands(), error);
        break;
    case binary_op::subtract:
        if (p == CB_DTYPE_BOOL)
            return fail(error, CB_ERR_UNSUPPORTED,
                        "numpy boolean subtract, the `-` operator, is not supported, "
                        "use the bitwise_xor, the `^` operator, or the logical_xor "
                        "function instead.");
        break;
    default:
        break;
    }
    return CB_OK;
}

cb_status unary_types(unary_op op, cb_dtype a, op_types& out, std::string& error) {
    if (!is_valid_dtype(a)) return fail(error, CB_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": invalid dtype");
    if (is_complex_dtype(a)) return complex_unary_types(op, a, out, error);
    // compute: the input's dtype (the functor converts); result: what numpy gives.
    out = {a, a};
    if (is_float_function(op)) {
        out.result = float_of_rank(float_rank(a));
        return CB_OK;
    }
    if (has_bool_result(op)) {
        out.result = CB_DTYPE_BOOL;
        return CB_OK;
    }
    switch (op) {
    case unary_op::negate:
        if (a == CB_DTYPE_BOOL)
            return fail(error, CB_ERR_UNSUPPORTED,
                        "The numpy boolean negative, the `-` operator, is not supported, "
                        "use the `~` operator or the logical_not function instead.");
        break;
    case unary_op::sign:
        if (a == CB_DTYPE_BOOL) return no_loop("sign", "bool", error);
        break;
    case unary_op::square:
    case unary_op::reciprocal:
        if (a == CB_DTYPE_BOOL) out.result = CB_DTYPE_INT8;
        break;
    case unary_op::invert:
        if (is_float_dtype(a)) return no_loop("invert", dtype_name(a), error);
        break;
    default:
        break;
    }
    return CB_OK;
}

cb_dtype result_dtype(binary_op op, cb_dtype a, cb_dtype b) {
    op_types t{};
    std::string ignored;  // only whether the op is refused matters here
    return binary_types(op, a, b, t, ignored) == CB_OK ? t.result : -1;
}

cb_dtype reduce_result_dtype(reduce_op op, cb_dtype in) {
    switch (op) {
    case reduce_op::sum:
    case reduce_op::prod:
        if (is_float_dtype(in) || is_complex_dtype(in)) return in;
        return is_unsigned_dtype(in) ? CB_DTYPE_UINT64 : CB_DTYPE_INT64;
    case reduce_op::mean:
        return is_float_dtype(in) || is_complex_dtype(in) ? in : CB_DTYPE_FLOAT64;
    default:
        return in;
    }
}

}  // namespace cudabridge::nv::kernels

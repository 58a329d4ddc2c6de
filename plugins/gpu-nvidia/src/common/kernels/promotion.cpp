#include "common/kernels/promotion.hpp"

#include <string>

namespace cudabridge::nv::kernels {

namespace {

// Signed-integer ladder position (bool below everything); unsigned uint8 handled separately.
int int_rank(cb_dtype d) {
    switch (d) {
    case CB_DTYPE_INT8:
        return 1;
    case CB_DTYPE_INT16:
        return 2;
    case CB_DTYPE_INT32:
        return 3;
    case CB_DTYPE_INT64:
        return 4;
    default:
        return 0;
    }
}
cb_dtype int_of_rank(int r) {
    switch (r) {
    case 1:
        return CB_DTYPE_INT8;
    case 2:
        return CB_DTYPE_INT16;
    case 3:
        return CB_DTYPE_INT32;
    default:
        return CB_DTYPE_INT64;
    }
}

// The smallest float that holds an integer/bool dtype exactly (numpy's "can cast safely").
cb_dtype float_for(cb_dtype d) {
    if (d == CB_DTYPE_INT32 || d == CB_DTYPE_INT64) return CB_DTYPE_FLOAT64;
    return CB_DTYPE_FLOAT32;  // bool, int8, uint8, int16
}

// numpy's floating-point functions compute in the smallest float every operand casts to safely:
// 0 = float16 (bool, int8, uint8; the device has none), 1 = float32 (float32, int16), 2 = float64.
int float_rank(cb_dtype d) {
    switch (d) {
    case CB_DTYPE_FLOAT64:
    case CB_DTYPE_INT32:
    case CB_DTYPE_INT64:
        return 2;
    case CB_DTYPE_FLOAT32:
    case CB_DTYPE_INT16:
        return 1;
    default:
        return 0;
    }
}

cb_status no_float16(const char* op, const std::string& operands, std::string& error) {
    return fail(error, CB_ERR_UNSUPPORTED,
                std::string(op) + ": numpy computes " + operands +
                    " in float16, which the device does not have (cast to float32 first)");
}

cb_status no_loop(const char* op, const std::string& operands, std::string& error) {
    return fail(error, CB_ERR_UNSUPPORTED,
                std::string("ufunc '") + op + "' not supported for the input types (" + operands +
                    "), and the inputs could not be safely coerced to any supported types according to the "
                    "casting rule ''safe''");
}

}  // namespace

cb_dtype promote(cb_dtype a, cb_dtype b) {
    if (a == b) return a;
    if (a == CB_DTYPE_BOOL) return b;
    if (b == CB_DTYPE_BOOL) return a;
    if (is_float_dtype(a) || is_float_dtype(b)) {
        if (a == CB_DTYPE_FLOAT64 || b == CB_DTYPE_FLOAT64) return CB_DTYPE_FLOAT64;
        cb_dtype other = is_float_dtype(a) ? b : a;  // a float32 with an integer
        return float_for(other);
    }
    if (a == CB_DTYPE_UINT8 || b == CB_DTYPE_UINT8) {
        cb_dtype s = a == CB_DTYPE_UINT8 ? b : a;  // signed partner needs room for 0..255
        return int_of_rank(int_rank(s) < 2 ? 2 : int_rank(s));
    }
    return int_of_rank(int_rank(a) > int_rank(b) ? int_rank(a) : int_rank(b));
}

cb_status binary_types(binary_op op, cb_dtype a, cb_dtype b, op_types& out, std::string& error) {
    if (!is_valid_dtype(a) || !is_valid_dtype(b))
        return fail(error, CB_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": invalid dtype");
    auto operands = [&] { return std::string(dtype_name(a)) + " and " + dtype_name(b); };
    cb_dtype p = promote(a, b);
    out = {p, p};
    if (has_bool_result(op)) {
        out.result = CB_DTYPE_BOOL;
        return CB_OK;
    }
    if (is_float_function(op)) {
        const int r = float_rank(a) > float_rank(b) ? float_rank(a) : float_rank(b);
        if (r == 0) return no_float16(op_name(op), operands(), error);
        const cb_dtype f = r == 2 ? CB_DTYPE_FLOAT64 : CB_DTYPE_FLOAT32;
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
    // compute: the input's dtype (the functor converts); result: what numpy gives.
    out = {a, a};
    if (is_float_function(op)) {
        const int r = float_rank(a);
        if (r == 0) return no_float16(op_name(op), dtype_name(a), error);
        out.result = r == 2 ? CB_DTYPE_FLOAT64 : CB_DTYPE_FLOAT32;
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
        return is_float_dtype(in) ? in : CB_DTYPE_INT64;
    case reduce_op::mean:
        return is_float_dtype(in) ? in : CB_DTYPE_FLOAT64;
    default:
        return in;
    }
}

}  // namespace cudabridge::nv::kernels

// Operation identifiers shared by the type rules, the CPU engine and the CUDA launcher.
#pragma once

namespace cudabridge::nv::kernels {

// Enum order is part of the CUDA launcher's contract (nvidia_driver/kernel_driver): its token
// tables are checked against the last member, so greater_equal stays last here and abs last in
// unary_op. The ops with a bool result (logical_and .. greater_equal) form the tail.
enum class binary_op {
    add,
    subtract,
    multiply,
    divide,
    floor_divide,
    minimum,
    maximum,
    power,
    arctan2,
    hypot,
    copysign,
    logaddexp,
    logaddexp2,
    fmod,
    remainder,
    fmax,
    fmin,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    left_shift,
    right_shift,
    logical_and,
    logical_or,
    logical_xor,
    equal,
    not_equal,
    less,
    less_equal,
    greater,
    greater_equal
};

enum class unary_op {
    negate,
    exp,
    expm1,
    exp2,
    log,
    log1p,
    log2,
    log10,
    sqrt,
    cbrt,
    square,
    reciprocal,
    sin,
    cos,
    tan,
    arcsin,
    arccos,
    arctan,
    sinh,
    cosh,
    tanh,
    arcsinh,
    arccosh,
    arctanh,
    floor,
    ceil,
    trunc,
    rint,
    deg2rad,
    rad2deg,
    sign,
    isnan,
    isinf,
    isfinite,
    signbit,
    logical_not,
    invert,
    abs
};

// prod sits before max so min stays the last member (the CUDA launcher's token-table check).
enum class reduce_op { sum, mean, prod, max, min, nanmax, nanmin };  // nanmin last: launch blocks check the range

// max, min and their NaN-skipping forms: no identity, no complex order.
constexpr bool is_ordered(reduce_op op) { return op >= reduce_op::max; }

// The result is bool whatever the operands (comparisons and logical_and/or/xor).
constexpr bool has_bool_result(binary_op op) { return op >= binary_op::logical_and; }
constexpr bool is_comparison(binary_op op) { return op >= binary_op::equal; }

// Computed in floating point: integer and bool operands go to the smallest float that holds them.
constexpr bool is_float_function(binary_op op) { return op >= binary_op::arctan2 && op <= binary_op::logaddexp2; }
constexpr bool is_float_function(unary_op op) {
    return op >= unary_op::exp && op <= unary_op::rad2deg && op != unary_op::square && op != unary_op::reciprocal;
}
constexpr bool has_bool_result(unary_op op) { return op >= unary_op::isnan && op <= unary_op::logical_not; }

// numpy's ufunc names, used in messages.
constexpr const char* op_name(binary_op op) {
    switch (op) {
    case binary_op::add:
        return "add";
    case binary_op::subtract:
        return "subtract";
    case binary_op::multiply:
        return "multiply";
    case binary_op::divide:
        return "true_divide";
    case binary_op::floor_divide:
        return "floor_divide";
    case binary_op::minimum:
        return "minimum";
    case binary_op::maximum:
        return "maximum";
    case binary_op::power:
        return "power";
    case binary_op::arctan2:
        return "arctan2";
    case binary_op::hypot:
        return "hypot";
    case binary_op::copysign:
        return "copysign";
    case binary_op::logaddexp:
        return "logaddexp";
    case binary_op::logaddexp2:
        return "logaddexp2";
    case binary_op::fmod:
        return "fmod";
    case binary_op::remainder:
        return "remainder";
    case binary_op::fmax:
        return "fmax";
    case binary_op::fmin:
        return "fmin";
    case binary_op::bitwise_and:
        return "bitwise_and";
    case binary_op::bitwise_or:
        return "bitwise_or";
    case binary_op::bitwise_xor:
        return "bitwise_xor";
    case binary_op::left_shift:
        return "left_shift";
    case binary_op::right_shift:
        return "right_shift";
    case binary_op::logical_and:
        return "logical_and";
    case binary_op::logical_or:
        return "logical_or";
    case binary_op::logical_xor:
        return "logical_xor";
    case binary_op::equal:
        return "equal";
    case binary_op::not_equal:
        return "not_equal";
    case binary_op::less:
        return "less";
    case binary_op::less_equal:
        return "less_equal";
    case binary_op::greater:
        return "greater";
    case binary_op::greater_equal:
        return "greater_equal";
    }
    return "?";
}
constexpr const char* op_name(unary_op op) {
    switch (op) {
    case unary_op::negate:
        return "negative";
    case unary_op::exp:
        return "exp";
    case unary_op::expm1:
        return "expm1";
    case unary_op::exp2:
        return "exp2";
    case unary_op::log:
        return "log";
    case unary_op::log1p:
        return "log1p";
    case unary_op::log2:
        return "log2";
    case unary_op::log10:
        return "log10";
    case unary_op::sqrt:
        return "sqrt";
    case unary_op::cbrt:
        return "cbrt";
    case unary_op::square:
        return "square";
    case unary_op::reciprocal:
        return "reciprocal";
    case unary_op::sin:
        return "sin";
    case unary_op::cos:
        return "cos";
    case unary_op::tan:
        return "tan";
    case unary_op::arcsin:
        return "arcsin";
    case unary_op::arccos:
        return "arccos";
    case unary_op::arctan:
        return "arctan";
    case unary_op::sinh:
        return "sinh";
    case unary_op::cosh:
        return "cosh";
    case unary_op::tanh:
        return "tanh";
    case unary_op::arcsinh:
        return "arcsinh";
    case unary_op::arccosh:
        return "arccosh";
    case unary_op::arctanh:
        return "arctanh";
    case unary_op::floor:
        return "floor";
    case unary_op::ceil:
        return "ceil";
    case unary_op::trunc:
        return "trunc";
    case unary_op::rint:
        return "rint";
    case unary_op::deg2rad:
        return "deg2rad";
    case unary_op::rad2deg:
        return "rad2deg";
    case unary_op::sign:
        return "sign";
    case unary_op::isnan:
        return "isnan";
    case unary_op::isinf:
        return "isinf";
    case unary_op::isfinite:
        return "isfinite";
    case unary_op::signbit:
        return "signbit";
    case unary_op::logical_not:
        return "logical_not";
    case unary_op::invert:
        return "invert";
    case unary_op::abs:
        return "absolute";
    }
    return "?";
}
constexpr const char* op_name(reduce_op op) {
    switch (op) {
    case reduce_op::sum:
        return "add";
    case reduce_op::mean:
        return "mean";
    case reduce_op::prod:
        return "multiply";
    case reduce_op::max:
        return "maximum";
    case reduce_op::min:
        return "minimum";
    case reduce_op::nanmax:
        return "fmax";
    case reduce_op::nanmin:
        return "fmin";
    }
    return "?";
}

}  // namespace cudabridge::nv::kernels

// Operation identifiers shared by the type rules, the CPU engine and (later) the CUDA launcher.
#pragma once

namespace cudabridge::nv::kernels {

enum class binary_op {
    add,
    subtract,
    multiply,
    divide,
    floor_divide,
    minimum,
    maximum,
    equal,
    not_equal,
    less,
    less_equal,
    greater,
    greater_equal
};

enum class unary_op { negate, abs };

enum class reduce_op { sum, mean, max, min };

constexpr bool is_comparison(binary_op op) { return op >= binary_op::equal; }

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
constexpr const char* op_name(unary_op op) { return op == unary_op::negate ? "negative" : "absolute"; }
constexpr const char* op_name(reduce_op op) {
    switch (op) {
    case reduce_op::sum:
        return "add";
    case reduce_op::mean:
        return "mean";
    case reduce_op::max:
        return "maximum";
    case reduce_op::min:
        return "minimum";
    }
    return "?";
}

}  // namespace cudabridge::nv::kernels

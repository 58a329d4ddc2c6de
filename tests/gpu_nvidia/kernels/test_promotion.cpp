#include <gtest/gtest.h>

#include "common/kernels/promotion.hpp"

using namespace cudabridge::nv::kernels;

namespace {

const cb_dtype order[] = {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32,  CB_DTYPE_INT64,
                          CB_DTYPE_UINT8,   CB_DTYPE_INT8,    CB_DTYPE_INT16,  CB_DTYPE_BOOL,
                          CB_DTYPE_UINT16,  CB_DTYPE_UINT32,  CB_DTYPE_UINT64, CB_DTYPE_FLOAT16};
constexpr int k_order = sizeof order / sizeof order[0];

// np.result_type(row, col) printed by numpy 1.24.2 (rows and columns in `order`).
const cb_dtype numpy_table[k_order][k_order] = {
    {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT32,
     CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT32},
    {CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64,
     CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64},
    {CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_INT32, CB_DTYPE_INT32, CB_DTYPE_INT32,
     CB_DTYPE_INT32, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64},
    {CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_INT64, CB_DTYPE_INT64, CB_DTYPE_INT64, CB_DTYPE_INT64, CB_DTYPE_INT64,
     CB_DTYPE_INT64, CB_DTYPE_INT64, CB_DTYPE_INT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64},
    {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_UINT8, CB_DTYPE_INT16, CB_DTYPE_INT16,
     CB_DTYPE_UINT8, CB_DTYPE_UINT16, CB_DTYPE_UINT32, CB_DTYPE_UINT64, CB_DTYPE_FLOAT16},
    {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_INT16, CB_DTYPE_INT8, CB_DTYPE_INT16,
     CB_DTYPE_INT8, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT16},
    {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_INT16, CB_DTYPE_INT16, CB_DTYPE_INT16,
     CB_DTYPE_INT16, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT32},
    {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_UINT8, CB_DTYPE_INT8, CB_DTYPE_INT16,
     CB_DTYPE_BOOL, CB_DTYPE_UINT16, CB_DTYPE_UINT32, CB_DTYPE_UINT64, CB_DTYPE_FLOAT16},
    {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32, CB_DTYPE_INT64, CB_DTYPE_UINT16, CB_DTYPE_INT32,
     CB_DTYPE_INT32, CB_DTYPE_UINT16, CB_DTYPE_UINT16, CB_DTYPE_UINT32, CB_DTYPE_UINT64, CB_DTYPE_FLOAT32},
    {CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_INT64, CB_DTYPE_INT64, CB_DTYPE_UINT32, CB_DTYPE_INT64,
     CB_DTYPE_INT64, CB_DTYPE_UINT32, CB_DTYPE_UINT32, CB_DTYPE_UINT32, CB_DTYPE_UINT64, CB_DTYPE_FLOAT64},
    {CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_UINT64, CB_DTYPE_FLOAT64,
     CB_DTYPE_FLOAT64, CB_DTYPE_UINT64, CB_DTYPE_UINT64, CB_DTYPE_UINT64, CB_DTYPE_UINT64, CB_DTYPE_FLOAT64},
    {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT16, CB_DTYPE_FLOAT16,
     CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT16, CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT64, CB_DTYPE_FLOAT16},
};

}  // namespace

TEST(Promotion, MatchesNumpyResultType) {
    for (int i = 0; i < k_order; ++i)
        for (int j = 0; j < k_order; ++j)
            EXPECT_EQ(promote(order[i], order[j]), numpy_table[i][j])
                << dtype_name(order[i]) << " + " << dtype_name(order[j]);
}

TEST(Promotion, OpResultDtypes) {
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_INT8, CB_DTYPE_UINT8), CB_DTYPE_INT16);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_INT32, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::multiply, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::divide, CB_DTYPE_INT8, CB_DTYPE_INT8), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::divide, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::divide, CB_DTYPE_FLOAT32, CB_DTYPE_INT16), CB_DTYPE_FLOAT32);
    EXPECT_EQ(result_dtype(binary_op::floor_divide, CB_DTYPE_INT32, CB_DTYPE_INT32), CB_DTYPE_INT32);
    EXPECT_EQ(result_dtype(binary_op::floor_divide, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_INT8);
    EXPECT_EQ(result_dtype(binary_op::less, CB_DTYPE_FLOAT64, CB_DTYPE_INT8), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::minimum, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::subtract, CB_DTYPE_BOOL, CB_DTYPE_BOOL), -1);
    EXPECT_EQ(result_dtype(binary_op::subtract, CB_DTYPE_BOOL, CB_DTYPE_INT8), CB_DTYPE_INT8);
}

TEST(Promotion, RefusedOpsSayWhy) {
    std::string error;
    op_types t{};
    cb_status s = binary_types(binary_op::subtract, CB_DTYPE_BOOL, CB_DTYPE_BOOL, t, error);
    EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("numpy boolean subtract"), std::string::npos);
    s = unary_types(unary_op::negate, CB_DTYPE_BOOL, t, error);
    EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
    EXPECT_EQ(unary_types(unary_op::abs, CB_DTYPE_BOOL, t, error), CB_OK);
    EXPECT_EQ(binary_types(binary_op::add, 42, CB_DTYPE_BOOL, t, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(Promotion, ReductionDtypes) {
    EXPECT_EQ(reduce_result_dtype(reduce_op::sum, CB_DTYPE_INT8), CB_DTYPE_INT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::sum, CB_DTYPE_BOOL), CB_DTYPE_INT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::sum, CB_DTYPE_UINT8), CB_DTYPE_UINT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::sum, CB_DTYPE_UINT32), CB_DTYPE_UINT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::prod, CB_DTYPE_UINT16), CB_DTYPE_UINT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::prod, CB_DTYPE_INT8), CB_DTYPE_INT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::mean, CB_DTYPE_UINT64), CB_DTYPE_FLOAT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::max, CB_DTYPE_UINT64), CB_DTYPE_UINT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::sum, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT32);
    EXPECT_EQ(reduce_result_dtype(reduce_op::mean, CB_DTYPE_INT32), CB_DTYPE_FLOAT64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::mean, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT32);
    EXPECT_EQ(reduce_result_dtype(reduce_op::max, CB_DTYPE_BOOL), CB_DTYPE_BOOL);
    EXPECT_EQ(reduce_result_dtype(reduce_op::min, CB_DTYPE_INT16), CB_DTYPE_INT16);
}

// The ufuncs' dtypes, as numpy 1.24.2 prints them.
TEST(Promotion, UfuncResultDtypes) {
    std::string error;
    op_types t{};
    auto unary_result = [&](unary_op op, cb_dtype d) {
        return unary_types(op, d, t, error) == CB_OK ? t.result : cb_dtype(-1);
    };
    EXPECT_EQ(unary_result(unary_op::exp, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT32);
    EXPECT_EQ(unary_result(unary_op::exp, CB_DTYPE_INT32), CB_DTYPE_FLOAT64);
    EXPECT_EQ(unary_result(unary_op::sqrt, CB_DTYPE_INT64), CB_DTYPE_FLOAT64);
    EXPECT_EQ(unary_result(unary_op::log, CB_DTYPE_INT16), CB_DTYPE_FLOAT32);
    EXPECT_EQ(unary_result(unary_op::floor, CB_DTYPE_INT32), CB_DTYPE_FLOAT64);
    for (cb_dtype d : {CB_DTYPE_BOOL, CB_DTYPE_INT8, CB_DTYPE_UINT8, CB_DTYPE_FLOAT16})
        EXPECT_EQ(unary_result(unary_op::sin, d), CB_DTYPE_FLOAT16) << dtype_name(d);
    EXPECT_EQ(unary_result(unary_op::square, CB_DTYPE_BOOL), CB_DTYPE_INT8);
    EXPECT_EQ(unary_result(unary_op::reciprocal, CB_DTYPE_UINT8), CB_DTYPE_UINT8);
    EXPECT_EQ(unary_result(unary_op::sign, CB_DTYPE_BOOL), cb_dtype(-1));
    EXPECT_EQ(unary_result(unary_op::sign, CB_DTYPE_INT8), CB_DTYPE_INT8);
    EXPECT_EQ(unary_result(unary_op::isnan, CB_DTYPE_INT32), CB_DTYPE_BOOL);
    EXPECT_EQ(unary_result(unary_op::logical_not, CB_DTYPE_FLOAT64), CB_DTYPE_BOOL);
    EXPECT_EQ(unary_result(unary_op::invert, CB_DTYPE_BOOL), CB_DTYPE_BOOL);
    EXPECT_EQ(unary_result(unary_op::invert, CB_DTYPE_FLOAT32), cb_dtype(-1));
    EXPECT_EQ(unary_result(unary_op::deg2rad, CB_DTYPE_INT16), CB_DTYPE_FLOAT32);
    EXPECT_EQ(unary_result(unary_op::rad2deg, CB_DTYPE_UINT8), CB_DTYPE_FLOAT16);
    EXPECT_EQ(unary_result(unary_op::signbit, CB_DTYPE_INT8), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::logaddexp, CB_DTYPE_INT32, CB_DTYPE_INT8), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::logaddexp2, CB_DTYPE_BOOL, CB_DTYPE_INT8), CB_DTYPE_FLOAT16);

    EXPECT_EQ(result_dtype(binary_op::power, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_INT8);
    EXPECT_EQ(result_dtype(binary_op::power, CB_DTYPE_UINT8, CB_DTYPE_INT8), CB_DTYPE_INT16);
    EXPECT_EQ(result_dtype(binary_op::arctan2, CB_DTYPE_INT8, CB_DTYPE_UINT8), CB_DTYPE_FLOAT16);
    EXPECT_EQ(result_dtype(binary_op::arctan2, CB_DTYPE_INT8, CB_DTYPE_INT16), CB_DTYPE_FLOAT32);
    EXPECT_EQ(result_dtype(binary_op::hypot, CB_DTYPE_INT32, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::copysign, CB_DTYPE_BOOL, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT32);
    EXPECT_EQ(result_dtype(binary_op::remainder, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_INT8);
    EXPECT_EQ(result_dtype(binary_op::fmod, CB_DTYPE_INT8, CB_DTYPE_UINT8), CB_DTYPE_INT16);
    EXPECT_EQ(result_dtype(binary_op::fmax, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::logical_xor, CB_DTYPE_FLOAT32, CB_DTYPE_INT64), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::bitwise_and, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::bitwise_or, CB_DTYPE_UINT8, CB_DTYPE_INT8), CB_DTYPE_INT16);
    EXPECT_EQ(result_dtype(binary_op::bitwise_xor, CB_DTYPE_FLOAT32, CB_DTYPE_INT8), -1);
    EXPECT_EQ(result_dtype(binary_op::left_shift, CB_DTYPE_BOOL, CB_DTYPE_BOOL), CB_DTYPE_INT8);
    EXPECT_EQ(result_dtype(binary_op::right_shift, CB_DTYPE_INT64, CB_DTYPE_FLOAT64), -1);
    EXPECT_EQ(binary_types(binary_op::left_shift, CB_DTYPE_FLOAT32, CB_DTYPE_INT8, t, error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("ufunc 'left_shift' not supported for the input types"), std::string::npos) << error;
}

// The unsigned dtypes under numpy 1.24.2's ufunc rules.
TEST(Promotion, UnsignedUfuncDtypes) {
    std::string error;
    op_types t{};
    auto unary_result = [&](unary_op op, cb_dtype d) {
        return unary_types(op, d, t, error) == CB_OK ? t.result : cb_dtype(-1);
    };
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_UINT64, CB_DTYPE_INT64), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_UINT32, CB_DTYPE_INT32), CB_DTYPE_INT64);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_UINT16, CB_DTYPE_INT8), CB_DTYPE_INT32);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_UINT16, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT32);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_UINT32, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::floor_divide, CB_DTYPE_INT64, CB_DTYPE_UINT64), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::divide, CB_DTYPE_UINT16, CB_DTYPE_UINT16), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::less, CB_DTYPE_UINT64, CB_DTYPE_INT8), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::bitwise_and, CB_DTYPE_UINT64, CB_DTYPE_UINT8), CB_DTYPE_UINT64);
    EXPECT_EQ(result_dtype(binary_op::left_shift, CB_DTYPE_UINT32, CB_DTYPE_UINT32), CB_DTYPE_UINT32);
    // uint64 with a signed integer is float64, which has no shifts or bitwise ops
    EXPECT_EQ(result_dtype(binary_op::right_shift, CB_DTYPE_UINT64, CB_DTYPE_INT8), -1);
    EXPECT_EQ(result_dtype(binary_op::bitwise_or, CB_DTYPE_UINT64, CB_DTYPE_INT64), -1);
    EXPECT_EQ(result_dtype(binary_op::arctan2, CB_DTYPE_UINT16, CB_DTYPE_UINT8), CB_DTYPE_FLOAT32);
    EXPECT_EQ(unary_result(unary_op::sqrt, CB_DTYPE_UINT16), CB_DTYPE_FLOAT32);
    EXPECT_EQ(unary_result(unary_op::exp, CB_DTYPE_UINT32), CB_DTYPE_FLOAT64);
    EXPECT_EQ(unary_result(unary_op::log, CB_DTYPE_UINT64), CB_DTYPE_FLOAT64);
    EXPECT_EQ(unary_result(unary_op::negate, CB_DTYPE_UINT64), CB_DTYPE_UINT64);
    EXPECT_EQ(unary_result(unary_op::invert, CB_DTYPE_UINT16), CB_DTYPE_UINT16);
    EXPECT_EQ(unary_result(unary_op::sign, CB_DTYPE_UINT32), CB_DTYPE_UINT32);
}

// float16 under numpy 1.24.2's rules: the smallest float holding both operands, half results for
// the floating-point functions of 8-bit inputs, no bitwise ops or shifts.
TEST(Promotion, Float16Dtypes) {
    std::string error;
    op_types t{};
    auto unary_result = [&](unary_op op, cb_dtype d) {
        return unary_types(op, d, t, error) == CB_OK ? t.result : cb_dtype(-1);
    };
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_FLOAT16, CB_DTYPE_INT8), CB_DTYPE_FLOAT16);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_FLOAT16, CB_DTYPE_UINT8), CB_DTYPE_FLOAT16);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_FLOAT16, CB_DTYPE_INT16), CB_DTYPE_FLOAT32);
    EXPECT_EQ(result_dtype(binary_op::add, CB_DTYPE_FLOAT16, CB_DTYPE_UINT32), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::multiply, CB_DTYPE_FLOAT16, CB_DTYPE_FLOAT32), CB_DTYPE_FLOAT32);
    EXPECT_EQ(result_dtype(binary_op::divide, CB_DTYPE_FLOAT16, CB_DTYPE_BOOL), CB_DTYPE_FLOAT16);
    EXPECT_EQ(result_dtype(binary_op::divide, CB_DTYPE_INT8, CB_DTYPE_INT8), CB_DTYPE_FLOAT64);
    EXPECT_EQ(result_dtype(binary_op::less, CB_DTYPE_FLOAT16, CB_DTYPE_INT64), CB_DTYPE_BOOL);
    EXPECT_EQ(result_dtype(binary_op::hypot, CB_DTYPE_INT8, CB_DTYPE_BOOL), CB_DTYPE_FLOAT16);
    EXPECT_EQ(result_dtype(binary_op::bitwise_and, CB_DTYPE_FLOAT16, CB_DTYPE_INT8), -1);
    EXPECT_EQ(result_dtype(binary_op::left_shift, CB_DTYPE_FLOAT16, CB_DTYPE_FLOAT16), -1);
    EXPECT_EQ(unary_result(unary_op::exp, CB_DTYPE_FLOAT16), CB_DTYPE_FLOAT16);
    EXPECT_EQ(unary_result(unary_op::sqrt, CB_DTYPE_BOOL), CB_DTYPE_FLOAT16);
    EXPECT_EQ(unary_result(unary_op::negate, CB_DTYPE_FLOAT16), CB_DTYPE_FLOAT16);
    EXPECT_EQ(unary_result(unary_op::isnan, CB_DTYPE_FLOAT16), CB_DTYPE_BOOL);
    EXPECT_EQ(unary_result(unary_op::invert, CB_DTYPE_FLOAT16), cb_dtype(-1));
    EXPECT_EQ(reduce_result_dtype(reduce_op::sum, CB_DTYPE_FLOAT16), CB_DTYPE_FLOAT16);
    EXPECT_EQ(reduce_result_dtype(reduce_op::mean, CB_DTYPE_FLOAT16), CB_DTYPE_FLOAT16);
    EXPECT_EQ(reduce_result_dtype(reduce_op::mean, CB_DTYPE_INT8), CB_DTYPE_FLOAT64);
}

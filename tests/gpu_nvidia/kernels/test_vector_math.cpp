// The vector rows (vector_math.cpp) against the C library's scalar functions: the libmvec ones
// within glibc's documented 4 ulp for finite results, floor / ceil / trunc exactly; the same
// special values (NaN, infinities, overflow to inf, underflow to 0, the domains' edges and what
// lies outside them); every tail length past the last whole vector.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/kernels/vector_math.hpp"

namespace vm = cudabridge::nv::kernels::vector_math;

namespace {

template <class T>
T scalar(cudabridge::nv::kernels::unary_op f, T x) {
    using F = cudabridge::nv::kernels::unary_op;
    switch (f) {
    case F::exp:
        return std::exp(x);
    case F::log:
        return std::log(x);
    case F::sin:
        return std::sin(x);
    case F::cos:
        return std::cos(x);
    case F::exp2:
        return std::exp2(x);
    case F::expm1:
        return std::expm1(x);
    case F::log2:
        return std::log2(x);
    case F::log10:
        return std::log10(x);
    case F::log1p:
        return std::log1p(x);
    case F::cbrt:
        return std::cbrt(x);
    case F::tan:
        return std::tan(x);
    case F::arcsin:
        return std::asin(x);
    case F::arccos:
        return std::acos(x);
    case F::arctan:
        return std::atan(x);
    case F::sinh:
        return std::sinh(x);
    case F::cosh:
        return std::cosh(x);
    case F::tanh:
        return std::tanh(x);
    case F::arcsinh:
        return std::asinh(x);
    case F::arccosh:
        return std::acosh(x);
    case F::arctanh:
        return std::atanh(x);
    case F::floor:
        return std::floor(x);
    case F::ceil:
        return std::ceil(x);
    case F::trunc:
        return std::trunc(x);
    case F::rint:
        return std::rint(x);
    default:
        break;  // no vector row
    }
    return x;
}

template <class T>
std::vector<T> inputs() {
    const T inf = std::numeric_limits<T>::infinity();
    std::vector<T> v = {T(0),  T(-0.0), T(1),   T(-1),   inf,      -inf,    std::numeric_limits<T>::quiet_NaN(),
                        T(88), T(-104), T(710), T(-750), T(1e-30), T(1e30), std::numeric_limits<T>::denorm_min()};
    for (T edge : {T(0.5), T(-0.5), T(1e-10), T(-1e-10), T(2.5), T(-2.5), T(1.0000001), T(0.9999999), T(-1) + T(1e-7)})
        v.push_back(edge);  // domain edges (acos, acosh, atanh, log1p), halves for the roundings
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> spread(-50.0, 50.0), unit(-1.0, 1.0), above_one(1.0, 20.0);
    while (v.size() < 160) v.push_back(static_cast<T>(spread(rng)));
    while (v.size() < 220) v.push_back(static_cast<T>(unit(rng)));
    while (v.size() < 251) v.push_back(static_cast<T>(above_one(rng)));  // 251: a tail for 8, 4 and 2 lanes
    return v;
}

// Within `ulps` units in the last place of the scalar result, or both the same special value.
template <class T>
void expect_close(T got, T want, int ulps, T x) {
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << "x = " << x;
        return;
    }
    if (std::isinf(want) || want == T(0)) {
        EXPECT_EQ(got, want) << "x = " << x;
        return;
    }
    const T ulp = std::nextafter(std::fabs(want), std::numeric_limits<T>::infinity()) - std::fabs(want);
    EXPECT_LE(std::fabs(got - want), ulps * ulp) << "x = " << x << " got " << got << " want " << want;
}

template <class T>
void check_every_function() {
    using op = cudabridge::nv::kernels::unary_op;
    const std::vector<T> in = inputs<T>();
    int with_rows = 0;
    for (int k = 0; k <= static_cast<int>(op::abs); ++k) {
        const auto f = static_cast<op>(k);
        SCOPED_TRACE(std::string("unary op ") + cudabridge::nv::kernels::op_name(f));
        std::vector<T> out(in.size(), T(-7));
        if (!vm::row(f, in.data(), out.data(), static_cast<std::int64_t>(in.size()))) continue;  // the scalar loop
        ++with_rows;
        const bool rounding = f == op::floor || f == op::ceil || f == op::trunc || f == op::rint;
        for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{7}, size_t{9}, in.size()}) {
            std::fill(out.begin(), out.end(), T(-7));
            ASSERT_TRUE(vm::row(f, in.data(), out.data(), static_cast<std::int64_t>(n)));
            for (size_t i = 0; i < n; ++i) expect_close(out[i], scalar(f, in[i]), rounding ? 0 : 4, in[i]);
        }
    }
    if (with_rows == 0) GTEST_SKIP() << "no vector rows in this build or on this CPU: the scalar loops run";
    EXPECT_TRUE(with_rows == 24 || with_rows == 4) << with_rows << ": the 20 libmvec functions and 4 roundings, or "
                                                   << "the roundings alone without libmvec";
}

// pow and atan2 over every pair of a set of special and ordinary values, each side a row or a
// broadcast scalar, against the scalar functions.
template <class T>
void check_two_argument_functions() {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const std::vector<T> values = {T(0),    T(-0.0), T(1),       T(-1),   T(2),    T(-2), T(0.5),
                                   T(-8),   T(3),    T(1.0 / 3), inf,     -inf,    nan,   T(1e-30),
                                   T(1e30), T(100),  T(-100),    T(7.25), T(-0.75)};
    std::vector<T> a, b;  // every pair, 361 of them: a tail for 8, 4 and 2 lanes
    for (T x : values)
        for (T y : values) a.push_back(x), b.push_back(y);
    const auto n = static_cast<std::int64_t>(a.size());
    using op = cudabridge::nv::kernels::binary_op;
    for (op f : {op::power, op::arctan2}) {
        const auto scalar2 = [f](T x, T y) { return f == op::power ? std::pow(x, y) : std::atan2(x, y); };
        std::vector<T> out(a.size());
        if (!vm::row2(f, a.data(), 1, b.data(), 1, out.data(), n))
            GTEST_SKIP() << "no libmvec in this build: the scalar loops run";
        for (std::int64_t i = 0; i < n; ++i) expect_close(out[i], scalar2(a[i], b[i]), 4, a[i]);
        for (T s : values) {  // a broadcast scalar on either side
            ASSERT_TRUE(vm::row2(f, &s, 0, b.data(), 1, out.data(), n));
            for (std::int64_t i = 0; i < n; ++i) expect_close(out[i], scalar2(s, b[i]), 4, s);
            ASSERT_TRUE(vm::row2(f, a.data(), 1, &s, 0, out.data(), n));
            for (std::int64_t i = 0; i < n; ++i) expect_close(out[i], scalar2(a[i], s), 4, a[i]);
        }
    }
    std::vector<T> out(a.size());
    EXPECT_FALSE(vm::row2(op::add, a.data(), 1, b.data(), 1, out.data(), n)) << "no vector row";
    EXPECT_FALSE(vm::row2(op::power, a.data(), 2, b.data(), 1, out.data(), n / 2)) << "strided";
}

}  // namespace

TEST(VectorMath, Float32PowerAndArctan2AgreeWithTheScalarFunctions) { check_two_argument_functions<float>(); }

TEST(VectorMath, Float64PowerAndArctan2AgreeWithTheScalarFunctions) { check_two_argument_functions<double>(); }

TEST(VectorMath, Float32RowsAgreeWithTheScalarFunctions) { check_every_function<float>(); }

TEST(VectorMath, Float64RowsAgreeWithTheScalarFunctions) { check_every_function<double>(); }

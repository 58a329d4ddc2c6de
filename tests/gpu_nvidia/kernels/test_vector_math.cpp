// The libmvec rows (vector_math.cpp) against the C library's scalar functions: within glibc's
// documented 4 ulp for finite results, the same special values (NaN, infinities, overflow to inf,
// underflow to 0, log of 0 and of negatives), every tail length past the last whole vector.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/kernels/vector_math.hpp"

namespace vm = cudabridge::nv::kernels::vector_math;

namespace {

template <class T>
T scalar(vm::function f, T x) {
    switch (f) {
    case vm::function::exp:
        return std::exp(x);
    case vm::function::log:
        return std::log(x);
    case vm::function::sin:
        return std::sin(x);
    case vm::function::cos:
        return std::cos(x);
    }
    return x;
}

template <class T>
std::vector<T> inputs() {
    const T inf = std::numeric_limits<T>::infinity();
    std::vector<T> v = {T(0),  T(-0.0), T(1),   T(-1),   inf,      -inf,    std::numeric_limits<T>::quiet_NaN(),
                        T(88), T(-104), T(710), T(-750), T(1e-30), T(1e30), std::numeric_limits<T>::denorm_min()};
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> spread(-50.0, 50.0);
    while (v.size() < 203) v.push_back(static_cast<T>(spread(rng)));  // 203: a tail for 8, 4 and 2 lanes
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
    const std::vector<T> in = inputs<T>();
    for (vm::function f : {vm::function::exp, vm::function::log, vm::function::sin, vm::function::cos}) {
        for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{7}, size_t{9}, in.size()}) {
            std::vector<T> out(n, T(-7));
            if (!vm::row(f, in.data(), out.data(), static_cast<std::int64_t>(n)))
                GTEST_SKIP() << "no libmvec in this build: the scalar loops run";
            for (size_t i = 0; i < n; ++i) expect_close(out[i], scalar(f, in[i]), 4, in[i]);
        }
    }
}

}  // namespace

TEST(VectorMath, Float32RowsAgreeWithTheScalarFunctions) { check_every_function<float>(); }

TEST(VectorMath, Float64RowsAgreeWithTheScalarFunctions) { check_every_function<double>(); }

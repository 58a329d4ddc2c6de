// complex64 / complex128 (std::complex<float> / <double>) in the CPU engine: the per-element
// functions whose complex loop differs from the real one in numpy, and the reductions.
// Arithmetic, equality, the logical ops and the functions of one value (exp, sin, arctanh, ...:
// the C++ library's complex overloads, which follow C99 Annex G as numpy's npy_c* functions do)
// use the generic functors (functors.hpp).
#pragma once

#include <cmath>
#include <complex>
#include <limits>

#include "common/kernels/functors.hpp"

namespace cudabridge::nv::kernels::fn {

// |z| in the parts' type (numpy's absolute of complex64 is float32).
struct complex_abs {
    template <class T>
    typename T::value_type operator()(T a) const {
        return std::abs(a);
    }
};
// NaN in either part; an infinite part (numpy's isinf); both parts finite.
struct complex_isnan {
    template <class T>
    bool operator()(T a) const {
        return std::isnan(a.real()) || std::isnan(a.imag());
    }
};
struct complex_isinf {
    template <class T>
    bool operator()(T a) const {
        return std::isinf(a.real()) || std::isinf(a.imag());
    }
};
struct complex_isfinite {
    template <class T>
    bool operator()(T a) const {
        return std::isfinite(a.real()) && std::isfinite(a.imag());
    }
};
// numpy's special cases first: z ** 0 is 1; 0 ** b is 0 for a positive real b, else NaN (a
// complex zero to another power is ill-defined).
struct complex_power {
    template <class T>
    T operator()(T a, T b) const {
        using R = typename T::value_type;
        if (b == T(0)) return T(1);
        if (a == T(0)) {
            if (b.real() > R(0) && b.imag() == R(0)) return T(0);
            return T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
        }
        return std::pow(a, b);
    }
};

// sum and mean accumulate in complex128 (as float32 sums do in float64); prod multiplies in the
// element type, as numpy's multiply.reduce.
template <class T>
struct complex_sum_reducer {
    using acc_t = std::complex<double>;
    using out_t = T;
    static constexpr acc_t identity() { return acc_t(0); }
    static constexpr acc_t combine(acc_t a, acc_t b) { return a + b; }
    static constexpr acc_t lift(T v) { return acc_t(v); }
};
template <class T>
struct complex_mean_reducer : complex_sum_reducer<T> {};
template <class T>
struct complex_prod_reducer {
    using acc_t = T;
    using out_t = T;
    static constexpr acc_t identity() { return acc_t(1); }
    static constexpr acc_t combine(acc_t a, acc_t b) { return a * b; }
    static constexpr acc_t lift(T v) { return v; }
};

}  // namespace cudabridge::nv::kernels::fn

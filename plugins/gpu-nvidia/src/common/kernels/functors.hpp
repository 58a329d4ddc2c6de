// The per-element semantics of every kernel: the single description compiled by the CPU engine
// and, under nvcc, by the CUDA kernels. Integer arithmetic wraps (done in unsigned, where overflow
// is defined) and integer division by zero gives 0, as numpy's loops do.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#ifndef __CUDACC__
#include <complex>
#endif

#include "common/kernels/hd.hpp"

namespace cudabridge::nv::kernels::fn {

template <class T>
inline constexpr bool is_bool_v = std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !is_bool_v<T>;
// The floating-point element types: float and double, and in the CPU engine _Float16 (float16),
// which std::is_floating_point does not count.
template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T>
#ifndef __CUDACC__
                                   || std::is_same_v<T, _Float16>
#endif
    ;
// std::complex<float> / <double> (complex64 / complex128): CPU engine only (complex_functors.hpp).
template <class T>
struct is_complex : std::false_type {};
#ifndef __CUDACC__
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
#endif
template <class T>
inline constexpr bool is_complex_v = is_complex<T>::value;

// Unsigned type wide enough that the usual promotions never turn it back into (signed) int.
template <class T>
using wide_unsigned_t = std::conditional_t<(sizeof(T) <= 4), std::uint32_t, std::uint64_t>;

template <class T>
CB_NV_HD constexpr T wrap(wide_unsigned_t<T> v) {
    return static_cast<T>(v);
}  // modular since C++20

// The most negative value of a signed type (std::numeric_limits is host-only under nvcc).
template <class T>
CB_NV_HD constexpr T lowest_signed() {
    return wrap<T>(wide_unsigned_t<T>(1) << (sizeof(T) * 8 - 1));
}

struct add {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (is_bool_v<T>)
            return a || b;
        else if constexpr (is_int_v<T>)
            return wrap<T>(wide_unsigned_t<T>(a) + wide_unsigned_t<T>(b));
        else
            return a + b;
    }
};

struct subtract {  // never called with bool (refused by the type rules)
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (is_int_v<T>)
            return wrap<T>(wide_unsigned_t<T>(a) - wide_unsigned_t<T>(b));
        else
            return static_cast<T>(a - b);
    }
};

// numpy multiplies complex numbers by the plain formula, where C++'s operator* recovers
// infinities (C99 Annex G): (inf + 0j) * 2 is inf + NaN j in numpy.
template <class T>
constexpr T plain_complex_product(T a, T b) {
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}

struct multiply {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (is_bool_v<T>)
            return a && b;
        else if constexpr (is_int_v<T>)
            return wrap<T>(wide_unsigned_t<T>(a) * wide_unsigned_t<T>(b));
        else if constexpr (is_complex_v<T>)
            return plain_complex_product(a, b);
        else
            return a * b;
    }
};

struct divide {  // compute type is always floating (ints are promoted to float64 first)
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        return a / b;
    }
};

struct floor_divide {
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            // numpy's npy_floor_divide: fmod-based so that results are exact and signs right.
            if (b == 0) return a / b;
            T mod = std::fmod(a, b);
            T div = (a - mod) / b;
            if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
            if (div != 0) {
                T fl = std::floor(div);
                if (div - fl > T(0.5)) fl += T(1);
                return fl;
            }
            return std::copysign(T(0), a / b);
        } else {
            if (b == 0) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (a == lowest_signed<T>() && b == T(-1)) return a;  // MIN // -1 wraps to MIN
                T q = static_cast<T>(a / b);
                if ((a % b != 0) && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
                return q;
            } else {
                return static_cast<T>(a / b);
            }
        }
    }
};

// NaN-propagating, as numpy's minimum/maximum.
struct minimum {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (a != a) return a;
            if (b != b) return b;
        }
        return b < a ? b : a;
    }
};
struct maximum {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (a != a) return a;
            if (b != b) return b;
        }
        return a < b ? b : a;
    }
};

struct equal {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return a == b;
    }
};
struct not_equal {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return a != b;
    }
};
struct less {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return a < b;
    }
};
struct less_equal {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return a <= b;
    }
};
struct greater {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return a > b;
    }
};
struct greater_equal {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return a >= b;
    }
};

struct negate {  // never called with bool
    template <class T>
    CB_NV_HD constexpr T operator()(T a) const {
        if constexpr (is_int_v<T>)
            return wrap<T>(wide_unsigned_t<T>(0) - wide_unsigned_t<T>(a));
        else
            return -a;
    }
};

struct absolute {  // abs(INT_MIN) wraps to INT_MIN, as in numpy
    template <class T>
    CB_NV_HD T operator()(T a) const {
        if constexpr (std::is_floating_point_v<T>)
            return std::fabs(a);
        else if constexpr (is_int_v<T> && std::is_signed_v<T>)
            return a < 0 ? wrap<T>(wide_unsigned_t<T>(0) - wide_unsigned_t<T>(a)) : a;
        else
            return a;
    }
};

// ---- numpy's floating-point functions -----------------------------------------------------------
// Integer inputs compute in the smallest float that holds them, as numpy's loops: int16 in float32,
// int32/int64 in float64. (bool, int8 and uint8 would be float16, which the type rules refuse.)
// Complex inputs compute in their own type: std::exp, std::sin, ... have complex overloads (the C
// library's cexp, csin, ..., which numpy's complex loops call too).
template <class T>
using float_of_t =
    std::conditional_t<is_complex_v<T>, T,
                       std::conditional_t<std::is_same_v<T, double> || (is_int_v<T> && sizeof(T) >= 4), double, float>>;

// The input dtypes a floating-point function accepts on the device (no float16).
template <class T>
inline constexpr bool takes_float_function_v = std::is_floating_point_v<T> || (is_int_v<T> && sizeof(T) >= 2);

#define CB_NV_FLOAT_FUNCTION(NAME, EXPR)                            \
    struct NAME {                                                   \
        template <class T>                                          \
        CB_NV_HD float_of_t<T> operator()(T in) const {             \
            const float_of_t<T> a = static_cast<float_of_t<T>>(in); \
            return EXPR;                                            \
        }                                                           \
    };
CB_NV_FLOAT_FUNCTION(exp, std::exp(a))
CB_NV_FLOAT_FUNCTION(expm1, std::expm1(a))
CB_NV_FLOAT_FUNCTION(exp2, std::exp2(a))
CB_NV_FLOAT_FUNCTION(log, std::log(a))
CB_NV_FLOAT_FUNCTION(log1p, std::log1p(a))
CB_NV_FLOAT_FUNCTION(log2, std::log2(a))
CB_NV_FLOAT_FUNCTION(log10, std::log10(a))
CB_NV_FLOAT_FUNCTION(sqrt, std::sqrt(a))
CB_NV_FLOAT_FUNCTION(cbrt, std::cbrt(a))
CB_NV_FLOAT_FUNCTION(sin, std::sin(a))
CB_NV_FLOAT_FUNCTION(cos, std::cos(a))
CB_NV_FLOAT_FUNCTION(tan, std::tan(a))
CB_NV_FLOAT_FUNCTION(arcsin, std::asin(a))
CB_NV_FLOAT_FUNCTION(arccos, std::acos(a))
CB_NV_FLOAT_FUNCTION(arctan, std::atan(a))
CB_NV_FLOAT_FUNCTION(sinh, std::sinh(a))
CB_NV_FLOAT_FUNCTION(cosh, std::cosh(a))
CB_NV_FLOAT_FUNCTION(tanh, std::tanh(a))
CB_NV_FLOAT_FUNCTION(arcsinh, std::asinh(a))
CB_NV_FLOAT_FUNCTION(arccosh, std::acosh(a))
CB_NV_FLOAT_FUNCTION(arctanh, std::atanh(a))
CB_NV_FLOAT_FUNCTION(floor, std::floor(a))
CB_NV_FLOAT_FUNCTION(ceil, std::ceil(a))
CB_NV_FLOAT_FUNCTION(trunc, std::trunc(a))
CB_NV_FLOAT_FUNCTION(rint, std::rint(a))  // round half to even (the default rounding mode)
// numpy's npy_deg2rad / npy_rad2deg: one multiplication by a constant rounded in the compute type.
CB_NV_FLOAT_FUNCTION(deg2rad, a*(static_cast<float_of_t<T>>(3.141592653589793238462643383279502884) /
                                 static_cast<float_of_t<T>>(180)))
CB_NV_FLOAT_FUNCTION(rad2deg, a*(static_cast<float_of_t<T>>(180) /
                                 static_cast<float_of_t<T>>(3.141592653589793238462643383279502884)))
#undef CB_NV_FLOAT_FUNCTION

// numpy's square and reciprocal keep integer types (bool computes in int8).
template <class T>
using int8_if_bool_t = std::conditional_t<is_bool_v<T>, std::int8_t, T>;

struct square {
    template <class T>
    CB_NV_HD constexpr int8_if_bool_t<T> operator()(T a) const {
        if constexpr (is_bool_v<T>)
            return a ? 1 : 0;
        else if constexpr (is_int_v<T>)
            return wrap<T>(wide_unsigned_t<T>(a) * wide_unsigned_t<T>(a));
        else if constexpr (is_complex_v<T>)
            return plain_complex_product(a, a);
        else
            return a * a;
    }
};

// Integer reciprocal is numpy's 1.0 / a converted back: 1 and -1 are themselves, everything else
// truncates to 0, and 1 / 0 = inf converts as x86 does (INT_MIN for int32/int64, 0 for narrower).
struct reciprocal {
    template <class T>
    CB_NV_HD constexpr int8_if_bool_t<T> operator()(T a) const {
        if constexpr (is_bool_v<T>) {
            return a ? 1 : 0;
        } else if constexpr (is_int_v<T>) {
            if (a == T(1)) return T(1);
            if constexpr (std::is_signed_v<T>) {
                if (a == T(-1)) return T(-1);
                if (a == T(0) && sizeof(T) >= 4) return lowest_signed<T>();
            }
            return T(0);
        } else if constexpr (is_complex_v<T>) {
            // numpy's loop: Smith's quotient without scaling, so 1 / 0j is NaN in both halves.
            using R = typename T::value_type;
            const R re = a.real(), im = a.imag();
            if ((im < R(0) ? -im : im) <= (re < R(0) ? -re : re)) {
                const R r = im / re, d = re + im * r;
                return T(R(1) / d, -r / d);
            }
            const R r = re / im, d = re * r + im;
            return T(r / d, R(-1) / d);
        } else {
            return T(1) / a;
        }
    }
};

// sign: -1, 0 or 1; NaN stays NaN (and -0.0 gives 0.0), as numpy.
struct sign {  // never called with bool
    template <class T>
    CB_NV_HD constexpr T operator()(T a) const {
        if constexpr (std::is_floating_point_v<T>)
            return a > T(0) ? T(1) : (a < T(0) ? T(-1) : (a == T(0) ? T(0) : a));
        else if constexpr (std::is_signed_v<T>)
            return static_cast<T>((a > T(0)) - (a < T(0)));
        else
            return static_cast<T>(a != T(0));
    }
};

// x - x is NaN exactly for NaN and the infinities (no <cmath> classification: one spelling for
// host and device).
struct isnan {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a) const {
        if constexpr (std::is_floating_point_v<T>)
            return a != a;
        else
            return false;
    }
};
struct isinf {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a) const {
        if constexpr (std::is_floating_point_v<T>)
            return (a == a) & ((a - a) != (a - a));  // no short circuit: a branch per element does not vectorize
        else
            return false;
    }
};
struct isfinite {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a) const {
        if constexpr (std::is_floating_point_v<T>)
            return (a - a) == (a - a);
        else
            return true;
    }
};
// The sign bit: true for -0.0 and negative NaN too (copysign reads the bit on host and device).
struct signbit {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a) const {
        if constexpr (std::is_floating_point_v<T>)
            return std::copysign(T(1), a) < T(0);
        else if constexpr (std::is_signed_v<T> && !is_bool_v<T>)
            return a < T(0);
        else
            return false;
    }
};
struct logical_not {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a) const {
        return !(a != T(0));
    }
};
struct invert {  // integers and bool only
    template <class T>
    CB_NV_HD constexpr T operator()(T a) const {
        if constexpr (is_bool_v<T>)
            return !a;
        else
            return wrap<T>(~wide_unsigned_t<T>(a));
    }
};

// ---- binary functions beyond arithmetic ---------------------------------------------------------

// Integer power by squaring, wrapping as numpy's loop does. numpy refuses a negative integer
// exponent (ValueError, checked by the caller before launching); here it gives the truncated
// value of 1 / a^-b: 1 for a == 1, +-1 for a == -1, else 0. bool computes in int8 (type rules).
struct power {
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            return std::pow(a, b);
        } else if constexpr (is_bool_v<T>) {
            return a || !b;
        } else {
            if constexpr (std::is_signed_v<T>) {
                if (b < T(0)) return a == T(1) ? T(1) : (a == T(-1) ? ((b & T(1)) ? T(-1) : T(1)) : T(0));
            }
            wide_unsigned_t<T> base = wide_unsigned_t<T>(a), r = 1;
            for (wide_unsigned_t<T> e = wide_unsigned_t<T>(b); e != 0; e >>= 1) {
                if (e & 1) r = static_cast<wide_unsigned_t<T>>(r * base);
                base = static_cast<wide_unsigned_t<T>>(base * base);
            }
            return wrap<T>(r);
        }
    }
};

struct arctan2 {  // floating compute types only
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        return std::atan2(a, b);
    }
};
struct hypot {
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        return std::hypot(a, b);
    }
};
struct copysign {
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        return std::copysign(a, b);
    }
};

// log(exp(a) + exp(b)) and log2(2^a + 2^b) without overflow: numpy's npy_logaddexp(2).
struct logaddexp {  // floating compute types only
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        if (a == b) return a + static_cast<T>(0.693147180559945309417232121458176568);  // same-sign infinities too
        const T d = a - b;
        if (d > T(0)) return a + std::log1p(std::exp(-d));
        if (d <= T(0)) return b + std::log1p(std::exp(d));
        return d;  // NaN
    }
};
struct logaddexp2 {
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        constexpr T log2e = static_cast<T>(1.442695040888963407359924681001892137);
        if (a == b) return a + T(1);
        const T d = a - b;
        if (d > T(0)) return a + log2e * std::log1p(std::exp2(-d));
        if (d <= T(0)) return b + log2e * std::log1p(std::exp2(d));
        return d;
    }
};

// C's remainder (sign of the dividend). Integers: x % 0 is 0 and MIN % -1 is 0, as numpy.
struct fmod {  // never called with bool
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            return std::fmod(a, b);
        } else {
            if (b == T(0)) return T(0);
            if constexpr (std::is_signed_v<T>)
                if (b == T(-1)) return T(0);
            return static_cast<T>(a % b);
        }
    }
};

// Python's remainder (sign of the divisor): numpy's npy_remainder for floats.
struct remainder {  // never called with bool
    template <class T>
    CB_NV_HD T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            T mod = std::fmod(a, b);
            if (b == T(0)) return mod;
            if (mod != T(0)) {
                if ((b < T(0)) != (mod < T(0))) mod += b;
            } else {
                mod = std::copysign(T(0), b);
            }
            return mod;
        } else {
            if (b == T(0)) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return T(0);
                T r = static_cast<T>(a % b);
                if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
                return r;
            } else {
                return static_cast<T>(a % b);
            }
        }
    }
};

// NaN-ignoring maximum / minimum (NaN only when both are NaN), as numpy's fmax / fmin.
struct fmax {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>)
            return (a >= b || b != b) ? a : b;
        else
            return a < b ? b : a;
    }
};
struct fmin {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>)
            return (a <= b || b != b) ? a : b;
        else
            return b < a ? b : a;
    }
};

struct bitwise_and {  // integers and bool only
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (is_bool_v<T>)
            return a && b;
        else
            return static_cast<T>(a & b);
    }
};
struct bitwise_or {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (is_bool_v<T>)
            return a || b;
        else
            return static_cast<T>(a | b);
    }
};
struct bitwise_xor {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (is_bool_v<T>)
            return a != b;
        else
            return static_cast<T>(a ^ b);
    }
};

// The shift count as numpy's npy_lshift/npy_rshift read it: unsigned, so a negative count is huge.
template <class T>
CB_NV_HD constexpr std::uint64_t shift_count(T b) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(b));
}
// Shifts by the bit width or more give 0 (right shifts of negative values -1), as numpy 1.24.
struct left_shift {  // integers only (bool computes in int8)
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if (shift_count(b) >= sizeof(T) * 8) return T(0);
        return wrap<T>(static_cast<wide_unsigned_t<T>>(wide_unsigned_t<T>(a) << shift_count(b)));
    }
};
struct right_shift {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if (shift_count(b) >= sizeof(T) * 8) {
            if constexpr (std::is_signed_v<T>)
                if (a < T(0)) return T(-1);
            return T(0);
        }
        return static_cast<T>(a >> shift_count(b));
    }
};

// Both sides always evaluated (& and |, not && and ||): no branch per element, so the loops
// vectorize, and random data costs no mispredictions.
struct logical_and {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return (a != T(0)) & (b != T(0));
    }
};
struct logical_or {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return (a != T(0)) | (b != T(0));
    }
};
struct logical_xor {
    template <class T>
    CB_NV_HD constexpr bool operator()(T a, T b) const {
        return (a != T(0)) != (b != T(0));
    }
};

// Conversion between dtypes (np.ndarray.astype). Floating -> integer truncates toward zero; NaN and
// values outside int64 become INT64_MIN (what x86 cvttsd2si gives) before wrapping to the target
// (uint64 takes [2^63, 2^64) as they are), so no conversion is undefined behaviour. Anything -> bool is "!= 0" (NaN -> true).
template <class To, class From>
CB_NV_HD constexpr To cast_value(From v) {
    if constexpr (std::is_same_v<To, From>) {
        return v;
    } else if constexpr (is_complex_v<From> && !is_bool_v<To>) {  // numpy drops the imaginary part
        if constexpr (is_complex_v<To>)
            return To(static_cast<typename To::value_type>(v.real()), static_cast<typename To::value_type>(v.imag()));
        else
            return cast_value<To>(v.real());
    } else if constexpr (is_complex_v<To>) {
        return To(cast_value<typename To::value_type>(v), typename To::value_type(0));
    } else if constexpr (is_bool_v<To>) {
        return v != From(0);
    } else if constexpr (is_float_v<To>) {
        return static_cast<To>(v);
    } else if constexpr (is_float_v<From> && !std::is_floating_point_v<From>) {
        return cast_value<To>(static_cast<float>(v));  // float16 -> integer: through float (exact)
    } else if constexpr (is_float_v<From>) {
        if constexpr (std::is_same_v<To, std::uint64_t>) {
            // x86's unsigned conversion: [2^63, 2^64) exactly; beyond it (and +inf) 0.
            if (v >= From(9223372036854775808.0)) return v < From(18446744073709551616.0) ? static_cast<To>(v) : To(0);
        }
        std::int64_t i;
        if (!(v >= From(-9223372036854775808.0) && v < From(9223372036854775808.0)))
            i = lowest_signed<std::int64_t>();
        else
            i = static_cast<std::int64_t>(v);
        return static_cast<To>(i);
    } else {
        return static_cast<To>(v);  // integer -> integer: modular
    }
}

// arange element i: start + i * step in the output's arithmetic (wrapping for integers).
template <class T>
CB_NV_HD constexpr T arange_value(double start, double step, std::int64_t i) {
    return cast_value<T>(start + static_cast<double>(i) * step);
}
template <class T>
CB_NV_HD constexpr T arange_value_int(std::int64_t start, std::int64_t step, std::int64_t i) {
    std::uint64_t v = std::uint64_t(start) + std::uint64_t(i) * std::uint64_t(step);
    return cast_value<T>(static_cast<std::int64_t>(v));
}

// Reductions: accumulator type, output type (the C++ type of reduce_result_dtype), identity,
// combine and finish, per element type.

// The 64-bit integer an integer or bool accumulates in: uint64 for the unsigned types, as numpy's
// sum and prod of them give.
template <class T>
using int64_of_t = std::conditional_t<std::is_unsigned_v<T> && !is_bool_v<T>, std::uint64_t, std::int64_t>;

template <class T>
struct sum_reducer {
    // float32 sums accumulate in float64 (more accurate than numpy's pairwise float32; rounded
    // to float32 at the end). Integers accumulate in 64 bits with wrap-around, unsigned ones in
    // uint64 (numpy's sum of an unsigned dtype), the rest in int64.
    using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, int64_of_t<T>>;
    using out_t = std::conditional_t<std::is_floating_point_v<T>, T, int64_of_t<T>>;  // reduce_result_dtype
    CB_NV_HD static constexpr acc_t identity() { return acc_t(0); }
    CB_NV_HD static constexpr acc_t combine(acc_t a, acc_t b) {
        if constexpr (std::is_floating_point_v<acc_t>)
            return a + b;
        else
            return static_cast<acc_t>(std::uint64_t(a) + std::uint64_t(b));
    }
    CB_NV_HD static constexpr acc_t lift(T v) { return static_cast<acc_t>(v); }
    // float32 is first summed in float over short runs (as numpy's pairwise blocks are), the run
    // totals in float64: float adds are twice as wide as double ones, which keeps the loop at
    // memory speed, and a run of 128 adds loses far less than one float32 ulp of the total.
    using run_t = std::conditional_t<std::is_same_v<T, float>, float, acc_t>;
    static constexpr int run_length = 128;
    CB_NV_HD static constexpr run_t add_to_run(run_t r, T v) {
        if constexpr (std::is_same_v<run_t, acc_t>)
            return combine(r, lift(v));
        else
            return r + v;
    }
};

// numpy's mean accumulates every dtype in float64 (float32 too, here), so integers never wrap.
template <class T>
struct mean_reducer {
    using acc_t = double;
    using out_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;
    CB_NV_HD static constexpr acc_t identity() { return 0.0; }
    CB_NV_HD static constexpr acc_t combine(acc_t a, acc_t b) { return a + b; }
    CB_NV_HD static constexpr acc_t lift(T v) { return static_cast<acc_t>(v); }
};

// numpy's multiply.reduce: floats multiply in their own type (float32 products overflow to inf
// as numpy's do), integers and bool in 64 bits with wrap-around (uint64 for unsigned).
template <class T>
struct prod_reducer {
    using acc_t = std::conditional_t<std::is_floating_point_v<T>, T, int64_of_t<T>>;
    using out_t = acc_t;
    CB_NV_HD static constexpr acc_t identity() { return acc_t(1); }
    CB_NV_HD static constexpr acc_t combine(acc_t a, acc_t b) {
        if constexpr (std::is_floating_point_v<acc_t>)
            return a * b;
        else
            return static_cast<acc_t>(std::uint64_t(a) * std::uint64_t(b));
    }
    CB_NV_HD static constexpr acc_t lift(T v) { return static_cast<acc_t>(v); }
};

template <class T>
struct max_reducer {
    using acc_t = T;
    using out_t = T;
    CB_NV_HD static constexpr acc_t combine(acc_t a, acc_t b) { return maximum{}(a, b); }
    CB_NV_HD static constexpr acc_t lift(T v) { return v; }
    // combine() for inputs known to hold no NaN: a plain select the compiler vectorizes. Engines
    // may use it lane-wise with a separate NaN check, giving the same result as combine().
    template <class V>  // V: acc_t, or a CPU SIMD vector of acc_t (GCC vector extension)
    CB_NV_HD static constexpr V combine_ordered(V a, V b) {
        return a < b ? b : a;
    }
};
template <class T>
struct min_reducer {
    using acc_t = T;
    using out_t = T;
    CB_NV_HD static constexpr acc_t combine(acc_t a, acc_t b) { return minimum{}(a, b); }
    CB_NV_HD static constexpr acc_t lift(T v) { return v; }
    template <class V>
    CB_NV_HD static constexpr V combine_ordered(V a, V b) {
        return b < a ? b : a;
    }
};
// numpy's fmax.reduce / fmin.reduce (nanmax, nanmin): NaNs are skipped, a run of NaNs gives NaN.
// combine_ordered is exact here with NaNs too (it takes b where a is NaN, never a NaN b over a
// number), so engines need no NaN check.
template <class T, bool Max>
struct nan_skipping_reducer {
    using acc_t = T;
    using out_t = T;
    static constexpr bool skips_nan = true;
    CB_NV_HD static constexpr acc_t combine(acc_t a, acc_t b) {
        if constexpr (Max)
            return fmax{}(a, b);
        else
            return fmin{}(a, b);
    }
    CB_NV_HD static constexpr acc_t lift(T v) { return v; }
    template <class V>
    CB_NV_HD static constexpr V combine_ordered(V a, V b) {
        if constexpr (Max)
            return (a < b) | (a != a) ? b : a;
        else
            return (b < a) | (a != a) ? b : a;
    }
};
template <class T>
using nanmax_reducer = nan_skipping_reducer<T, true>;
template <class T>
using nanmin_reducer = nan_skipping_reducer<T, false>;

}  // namespace cudabridge::nv::kernels::fn

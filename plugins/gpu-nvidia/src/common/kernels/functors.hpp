// The per-element semantics of every kernel: the single description compiled by the CPU engine
// and, under nvcc, by the CUDA kernels. Integer arithmetic wraps (done in unsigned, where overflow
// is defined) and integer division by zero gives 0, as numpy's loops do.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "common/kernels/hd.hpp"

namespace cudabridge::nv::kernels::fn {

template <class T>
inline constexpr bool is_bool_v = std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !is_bool_v<T>;

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

struct multiply {
    template <class T>
    CB_NV_HD constexpr T operator()(T a, T b) const {
        if constexpr (is_bool_v<T>)
            return a && b;
        else if constexpr (is_int_v<T>)
            return wrap<T>(wide_unsigned_t<T>(a) * wide_unsigned_t<T>(b));
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

// Conversion between dtypes (np.ndarray.astype). Floating -> integer truncates toward zero; NaN and
// values outside int64 become INT64_MIN (what x86 cvttsd2si gives) before wrapping to the target,
// so no conversion is undefined behaviour. Anything -> bool is "!= 0" (NaN -> true).
template <class To, class From>
CB_NV_HD constexpr To cast_value(From v) {
    if constexpr (std::is_same_v<To, From>) {
        return v;
    } else if constexpr (is_bool_v<To>) {
        return v != From(0);
    } else if constexpr (std::is_floating_point_v<To>) {
        return static_cast<To>(v);
    } else if constexpr (std::is_floating_point_v<From>) {
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

// Reductions: accumulator type, identity, combine and finish, per element type.
template <class T>
struct sum_reducer {
    // float32 sums accumulate in float64 (more accurate than numpy's pairwise float32; rounded
    // to float32 at the end). Integers accumulate in int64 with wrap-around.
    using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
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
    CB_NV_HD static constexpr acc_t identity() { return 0.0; }
    CB_NV_HD static constexpr acc_t combine(acc_t a, acc_t b) { return a + b; }
    CB_NV_HD static constexpr acc_t lift(T v) { return static_cast<acc_t>(v); }
};

template <class T>
struct max_reducer {
    using acc_t = T;
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
    CB_NV_HD static constexpr acc_t combine(acc_t a, acc_t b) { return minimum{}(a, b); }
    CB_NV_HD static constexpr acc_t lift(T v) { return v; }
    template <class V>
    CB_NV_HD static constexpr V combine_ordered(V a, V b) {
        return b < a ? b : a;
    }
};

}  // namespace cudabridge::nv::kernels::fn

// Helpers shared by the kernel tests: typed access to owned tensors and small deterministic data.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/kernels/dtype.hpp"
#include "common/kernels/functors.hpp"
#include "common/kernels/tensor.hpp"

namespace kt {

__extension__ typedef __int128 i128;  // exact wrap-around reference for int64

using namespace cudabridge::nv::kernels;

// Element i of t (contiguous) as double.
inline double get(const tensor& t, std::int64_t i) {
    return dispatch(t.view().dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (fn::is_complex_v<T>)
            return static_cast<double>(t.as<T>()[i].real());  // the real part (complex tests read both)
        else
            return static_cast<double>(t.as<T>()[i]);
    });
}
inline void set(tensor& t, std::int64_t i, double v) {
    dispatch(t.view().dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        t.as<T>()[i] = fn::cast_value<T>(v);  // defined for every value (negative -> unsigned wraps)
    });
}

// Small values that exercise signs, zero and (for 8-bit products) wrap-around; floats are
// multiples of 0.25 so the reference arithmetic in double is exact.
inline tensor random_tensor(cb_dtype d, std::initializer_list<std::int64_t> shape, unsigned seed) {
    tensor t(d, shape);
    std::mt19937 rng(seed);
    for (std::int64_t i = 0; i < t.size(); ++i) {
        double v;
        switch (d) {
        case CB_DTYPE_BOOL:
            v = rng() % 2;
            break;
        case CB_DTYPE_UINT8:
            v = rng() % 256;
            break;
        case CB_DTYPE_UINT16:
        case CB_DTYPE_UINT32:
        case CB_DTYPE_UINT64:
            v = rng() % 121;
            break;
        case CB_DTYPE_FLOAT32:
        case CB_DTYPE_FLOAT64:
        case CB_DTYPE_FLOAT16:
            v = (static_cast<int>(rng() % 161) - 80) * 0.25;
            break;
        default:
            v = static_cast<int>(rng() % 121) - 60;
            break;
        }
        set(t, i, v);
    }
    return t;
}

inline const cb_dtype all_dtypes[] = {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32,  CB_DTYPE_INT64,
                                      CB_DTYPE_UINT8,   CB_DTYPE_INT8,    CB_DTYPE_INT16,  CB_DTYPE_BOOL,
                                      CB_DTYPE_UINT16,  CB_DTYPE_UINT32,  CB_DTYPE_UINT64, CB_DTYPE_FLOAT16};

// Wraps an exact integer value into dtype d the way two's-complement storage does.
inline double wrap_to(cb_dtype d, long double v) {
    auto w = [&](int bits, bool is_signed) {
        i128 x = static_cast<i128>(v);
        i128 mod = static_cast<i128>(1) << bits;
        x %= mod;
        if (x < 0) x += mod;
        if (is_signed && x >= mod / 2) x -= mod;
        return static_cast<double>(x);
    };
    switch (d) {
    case CB_DTYPE_INT8:
        return w(8, true);
    case CB_DTYPE_UINT8:
        return w(8, false);
    case CB_DTYPE_INT16:
        return w(16, true);
    case CB_DTYPE_INT32:
        return w(32, true);
    case CB_DTYPE_INT64:
        return w(64, true);
    case CB_DTYPE_UINT16:
        return w(16, false);
    case CB_DTYPE_UINT32:
        return w(32, false);
    case CB_DTYPE_UINT64:
        return w(64, false);
    case CB_DTYPE_BOOL:
        return v != 0;
    case CB_DTYPE_FLOAT32:
        return static_cast<float>(v);
    case CB_DTYPE_FLOAT16:
        return static_cast<double>(static_cast<float16>(static_cast<double>(v)));
    default:
        return static_cast<double>(v);
    }
}

}  // namespace kt

// The eight dtypes of the kernel library and a once-per-call dispatch from a runtime cb_dtype to a
// C++ type, so the inner loops are typed (and vectorizable) rather than switching per element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cudabridge/gpu.h>

namespace cudabridge::nv::kernels {

inline constexpr int k_dtype_count = 8;

template <class T>
struct type_tag {
    using type = T;
};

constexpr bool is_valid_dtype(cb_dtype d) { return d >= CB_DTYPE_FLOAT32 && d <= CB_DTYPE_BOOL; }
constexpr bool is_float_dtype(cb_dtype d) { return d == CB_DTYPE_FLOAT32 || d == CB_DTYPE_FLOAT64; }
constexpr bool is_bool_dtype(cb_dtype d) { return d == CB_DTYPE_BOOL; }
constexpr bool is_int_dtype(cb_dtype d) { return is_valid_dtype(d) && !is_float_dtype(d) && !is_bool_dtype(d); }

constexpr std::size_t dtype_size(cb_dtype d) {
    switch (d) {
    case CB_DTYPE_FLOAT32:
        return 4;
    case CB_DTYPE_FLOAT64:
        return 8;
    case CB_DTYPE_INT32:
        return 4;
    case CB_DTYPE_INT64:
        return 8;
    case CB_DTYPE_UINT8:
        return 1;
    case CB_DTYPE_INT8:
        return 1;
    case CB_DTYPE_INT16:
        return 2;
    case CB_DTYPE_BOOL:
        return 1;
    default:
        return 0;
    }
}

// numpy's names, used in error messages.
constexpr const char* dtype_name(cb_dtype d) {
    switch (d) {
    case CB_DTYPE_FLOAT32:
        return "float32";
    case CB_DTYPE_FLOAT64:
        return "float64";
    case CB_DTYPE_INT32:
        return "int32";
    case CB_DTYPE_INT64:
        return "int64";
    case CB_DTYPE_UINT8:
        return "uint8";
    case CB_DTYPE_INT8:
        return "int8";
    case CB_DTYPE_INT16:
        return "int16";
    case CB_DTYPE_BOOL:
        return "bool";
    default:
        return "invalid";
    }
}

template <class T>
constexpr cb_dtype dtype_of() {
    if constexpr (std::is_same_v<T, float>)
        return CB_DTYPE_FLOAT32;
    else if constexpr (std::is_same_v<T, double>)
        return CB_DTYPE_FLOAT64;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return CB_DTYPE_INT32;
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return CB_DTYPE_INT64;
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return CB_DTYPE_UINT8;
    else if constexpr (std::is_same_v<T, std::int8_t>)
        return CB_DTYPE_INT8;
    else if constexpr (std::is_same_v<T, std::int16_t>)
        return CB_DTYPE_INT16;
    else {
        static_assert(std::is_same_v<T, bool>, "not a kernel dtype");
        return CB_DTYPE_BOOL;
    }
}

// Calls f(type_tag<T>{}) for the C++ type of d. bool tensors hold bytes 0 or 1.
// Precondition: is_valid_dtype(d) (callers validate first).
template <class F>
decltype(auto) dispatch(cb_dtype d, F&& f) {
    switch (d) {
    case CB_DTYPE_FLOAT32:
        return f(type_tag<float>{});
    case CB_DTYPE_FLOAT64:
        return f(type_tag<double>{});
    case CB_DTYPE_INT32:
        return f(type_tag<std::int32_t>{});
    case CB_DTYPE_INT64:
        return f(type_tag<std::int64_t>{});
    case CB_DTYPE_UINT8:
        return f(type_tag<std::uint8_t>{});
    case CB_DTYPE_INT8:
        return f(type_tag<std::int8_t>{});
    case CB_DTYPE_INT16:
        return f(type_tag<std::int16_t>{});
    default:
        return f(type_tag<bool>{});
    }
}

}  // namespace cudabridge::nv::kernels

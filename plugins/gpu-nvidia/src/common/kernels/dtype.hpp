// The dtypes of the kernel library and a once-per-call dispatch from a runtime cb_dtype to a
// C++ type, so the inner loops are typed (and vectorizable) rather than switching per element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <complex>
#include <type_traits>

#include <cudabridge/gpu.h>

namespace cudabridge::nv::kernels {

// CB_DTYPE_FLOAT32 .. CB_DTYPE_COMPLEX128: the codes are dense from 0.
inline constexpr int k_dtype_count = 14;

// IEEE half (numpy's float16): the compiler's _Float16. Only storage, casts, sorting and
// comparisons see it; arithmetic converts to float32 and rounds once, as numpy's half loops do.
using float16 = _Float16;

template <class T>
struct type_tag {
    using type = T;
};

enum class dtype_kind { floating, signed_int, unsigned_int, boolean, complex };

// What promotion and the messages need of a dtype; indexed by its code.
struct dtype_info {
    const char* name;  // numpy's
    std::size_t size;
    dtype_kind kind;
};
inline constexpr dtype_info k_dtypes[k_dtype_count] = {
    {"float32", 4, dtype_kind::floating},    {"float64", 8, dtype_kind::floating},
    {"int32", 4, dtype_kind::signed_int},    {"int64", 8, dtype_kind::signed_int},
    {"uint8", 1, dtype_kind::unsigned_int},  {"int8", 1, dtype_kind::signed_int},
    {"int16", 2, dtype_kind::signed_int},    {"bool", 1, dtype_kind::boolean},
    {"uint16", 2, dtype_kind::unsigned_int}, {"uint32", 4, dtype_kind::unsigned_int},
    {"uint64", 8, dtype_kind::unsigned_int}, {"float16", 2, dtype_kind::floating},
    {"complex64", 8, dtype_kind::complex},   {"complex128", 16, dtype_kind::complex},
};

constexpr bool is_valid_dtype(cb_dtype d) { return d >= 0 && d < k_dtype_count; }
constexpr dtype_kind kind_of(cb_dtype d) { return k_dtypes[d].kind; }
constexpr bool is_float_dtype(cb_dtype d) { return is_valid_dtype(d) && kind_of(d) == dtype_kind::floating; }
constexpr bool is_bool_dtype(cb_dtype d) { return d == CB_DTYPE_BOOL; }
constexpr bool is_complex_dtype(cb_dtype d) { return is_valid_dtype(d) && kind_of(d) == dtype_kind::complex; }
constexpr bool is_unsigned_dtype(cb_dtype d) { return is_valid_dtype(d) && kind_of(d) == dtype_kind::unsigned_int; }
constexpr bool is_int_dtype(cb_dtype d) {
    return is_valid_dtype(d) && (kind_of(d) == dtype_kind::signed_int || kind_of(d) == dtype_kind::unsigned_int);
}

constexpr std::size_t dtype_size(cb_dtype d) { return is_valid_dtype(d) ? k_dtypes[d].size : 0; }

// numpy's names, used in error messages.
constexpr const char* dtype_name(cb_dtype d) { return is_valid_dtype(d) ? k_dtypes[d].name : "invalid"; }

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
    else if constexpr (std::is_same_v<T, std::uint16_t>)
        return CB_DTYPE_UINT16;
    else if constexpr (std::is_same_v<T, std::uint32_t>)
        return CB_DTYPE_UINT32;
    else if constexpr (std::is_same_v<T, std::uint64_t>)
        return CB_DTYPE_UINT64;
    else if constexpr (std::is_same_v<T, float16>)
        return CB_DTYPE_FLOAT16;
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return CB_DTYPE_COMPLEX64;
    else if constexpr (std::is_same_v<T, std::complex<double>>)
        return CB_DTYPE_COMPLEX128;
    else {
        static_assert(std::is_same_v<T, bool>, "not a kernel dtype");
        return CB_DTYPE_BOOL;
    }
}

// Calls f(type_tag<T>{}) for the C++ type of d. bool tensors hold bytes 0 or 1.
// Precondition: is_valid_dtype(d) (callers validate first). dispatch<false> is for the arithmetic
// loops, which never see float16 (callers convert it to float32 first): it instantiates nothing
// for it.
template <bool WithFloat16 = true, class F>
decltype(auto) dispatch(cb_dtype d, F&& f) {
    switch (d) {
    case CB_DTYPE_FLOAT16:
        if constexpr (WithFloat16)
            return f(type_tag<float16>{});
        else
            return f(type_tag<float>{});
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
    case CB_DTYPE_UINT16:
        return f(type_tag<std::uint16_t>{});
    case CB_DTYPE_UINT32:
        return f(type_tag<std::uint32_t>{});
    case CB_DTYPE_UINT64:
        return f(type_tag<std::uint64_t>{});
    case CB_DTYPE_COMPLEX64:
        return f(type_tag<std::complex<float>>{});
    case CB_DTYPE_COMPLEX128:
        return f(type_tag<std::complex<double>>{});
    default:
        return f(type_tag<bool>{});
    }
}

}  // namespace cudabridge::nv::kernels

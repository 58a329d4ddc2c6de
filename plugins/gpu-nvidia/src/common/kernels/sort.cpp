#include "common/kernels/sort.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "common/kernels/indexing_functors.hpp"

namespace cudabridge::nv::kernels {

namespace {

const char* name_of(bool arg) { return arg ? "argsort" : "sort"; }

// Calls row(r) for every row of the last axis, rows spread over the engine's threads.
template <class Row>
void each_row(const tensor_view& in, engine& eng, Row&& row) {
    const std::int64_t n = in.shape[in.ndim - 1];
    const std::int64_t rows = n == 0 ? 0 : numel(in) / n;
    constexpr std::int64_t grain = 1 << 14;  // elements per chunk of rows
    eng.parallel_for(rows, std::max<std::int64_t>(1, grain / std::max<std::int64_t>(n, 1)),
                     [&](std::int64_t b, std::int64_t e) {
                         for (std::int64_t r = b; r < e; ++r) row(r, n);
                     });
}

// An unsigned key whose order is fn::sort_less's: integers with the sign bit flipped, floats by
// their bits (negatives inverted), every NaN the largest key and -0.0 the key of 0.0, so equal
// values under sort_less have equal keys (argsort stays stable among them, as std::stable_sort).
template <class T>
auto radix_key(T v) {
    if constexpr (std::is_same_v<T, bool>) {
        return std::uint8_t(v);
    } else if constexpr (fn::is_float_v<T>) {
        using U = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                     std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
        constexpr U sign = U(U(1) << (sizeof(U) * 8 - 1));
        if (v != v) return U(~U(0));  // NaN
        if (v == T(0)) return sign;   // +0.0 and -0.0
        U bits;
        std::memcpy(&bits, &v, sizeof bits);
        return (bits & sign) ? U(~bits) : U(bits | sign);
    } else {
        using U = std::make_unsigned_t<T>;
        constexpr U sign = std::is_signed_v<T> ? U(U(1) << (sizeof(U) * 8 - 1)) : U(0);
        return U(U(v) ^ sign);
    }
}

// Stable LSD radix sort of one row by radix_key, 8 bits a pass (passes where every key has the
// same digit are skipped): values move with their keys, and idx (when given) with both.
template <class T>
void radix_row(T* values, std::int64_t* idx, std::int64_t n) {
    using K = decltype(radix_key(T{}));
    std::vector<K> keys(static_cast<std::size_t>(n)), keys2(keys.size());
    std::unique_ptr<T[]> values2(new T[keys.size()]);  // not std::vector: vector<bool> has no data()
    std::vector<std::int64_t> idx2(idx ? keys.size() : 0);
    for (std::int64_t i = 0; i < n; ++i) keys[std::size_t(i)] = radix_key(values[i]);
    K* k = keys.data();
    K* k2 = keys2.data();
    T* v = values;
    T* v2 = values2.get();
    std::int64_t* x = idx;
    std::int64_t* x2 = idx2.data();
    for (unsigned shift = 0; shift < sizeof(K) * 8; shift += 8) {
        std::int64_t count[257] = {};
        for (std::int64_t i = 0; i < n; ++i) ++count[((k[i] >> shift) & 0xFF) + 1];
        if (count[((k[0] >> shift) & 0xFF) + 1] == n) continue;  // one digit for all: nothing moves
        for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t to = count[(k[i] >> shift) & 0xFF]++;
            k2[to] = k[i];
            v2[to] = v[i];
            if (x) x2[to] = x[i];
        }
        std::swap(k, k2);
        std::swap(v, v2);
        if (x) std::swap(x, x2);
    }
    if (v != values) std::copy(v, v + n, values);
    if (x != idx) std::copy(x, x + n, idx);
}

// Rows shorter than this sort by comparison (the radix passes' histograms would dominate).
constexpr std::int64_t k_radix_min = 512;

}  // namespace

cb_status plan_sort(bool arg, const tensor_view& in, const tensor_view& out, std::string& error) {
    const std::string what = name_of(arg);
    if (in.ndim < 1) return fail(error, CB_ERR_INVALID_ARGUMENT, what + ": the input must have at least 1 dimension");
    if (!is_contiguous(in) || !is_contiguous(out))
        return fail(error, CB_ERR_INVALID_ARGUMENT, what + ": the input and the output must be contiguous");
    if (is_complex_dtype(in.dtype))
        return fail(error, CB_ERR_UNSUPPORTED,
                    what + ": " + dtype_name(in.dtype) +
                        " is not supported on the device (numpy orders complex numbers lexicographically)");
    const cb_dtype want = arg ? CB_DTYPE_INT64 : in.dtype;
    if (out.dtype != want)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    what + ": output dtype " + dtype_name(out.dtype) + " where the result is " + dtype_name(want));
    bool same = out.ndim == in.ndim;
    for (int i = 0; same && i < in.ndim; ++i) same = out.shape[i] == in.shape[i];
    if (!same)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    what + ": output shape " + shape_string(out) + " differs from the input's " + shape_string(in));
    return CB_OK;
}

cb_status sort(const tensor_view& in, const tensor_view& out, std::string& error, engine& eng) {
    if (cb_status s = plan_sort(false, in, out, error); s != CB_OK) return s;
    dispatch(in.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!fn::is_complex_v<T>)  // refused by plan_sort
            each_row(in, eng, [&](std::int64_t r, std::int64_t n) {
                const T* x = static_cast<const T*>(in.data) + r * n;
                T* o = static_cast<T*>(out.data) + r * n;
                std::copy(x, x + n, o);
                if (n >= k_radix_min)
                    radix_row(o, static_cast<std::int64_t*>(nullptr), n);
                else
                    std::sort(o, o + n, [](T a, T b) { return fn::sort_less(a, b); });
            });
    });
    return CB_OK;
}

cb_status argsort(const tensor_view& in, const tensor_view& out, std::string& error, engine& eng) {
    if (cb_status s = plan_sort(true, in, out, error); s != CB_OK) return s;
    dispatch(in.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!fn::is_complex_v<T>)  // refused by plan_sort
            each_row(in, eng, [&](std::int64_t r, std::int64_t n) {
                const T* x = static_cast<const T*>(in.data) + r * n;
                std::int64_t* o = static_cast<std::int64_t*>(out.data) + r * n;
                std::iota(o, o + n, std::int64_t{0});
                if (n >= k_radix_min) {
                    std::unique_ptr<T[]> copy(new T[static_cast<std::size_t>(n)]);
                    std::copy(x, x + n, copy.get());
                    radix_row(copy.get(), o, n);
                } else {
                    std::stable_sort(o, o + n,
                                     [x](std::int64_t a, std::int64_t b) { return fn::sort_less(x[a], x[b]); });
                }
            });
    });
    return CB_OK;
}

}  // namespace cudabridge::nv::kernels

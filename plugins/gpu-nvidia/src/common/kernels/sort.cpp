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

#include "common/kernels/host_block.hpp"
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
// same digit are skipped): the keys come from `in`; `values` (when given, holding in's values)
// move with them, and so does idx (when given). The scratch arrays come from host_block's pool:
// a 16M-element sort faulting in 192 MiB of fresh pages on every call spent most of its time there.
template <class T>
void radix_row(const T* in, T* values, std::int64_t* idx, std::int64_t n) {
    using K = decltype(radix_key(T{}));
    const auto count_of = static_cast<std::size_t>(n);
    host_block keys(count_of * sizeof(K)), keys2(count_of * sizeof(K));
    host_block values2(values ? count_of * sizeof(T) : 0), idx2(idx ? count_of * sizeof(std::int64_t) : 0);
    K* k = static_cast<K*>(keys.data());
    K* k2 = static_cast<K*>(keys2.data());
    for (std::int64_t i = 0; i < n; ++i) k[i] = radix_key(in[i]);
    T* v = values;
    T* v2 = static_cast<T*>(values2.data());
    std::int64_t* x = idx;
    std::int64_t* x2 = static_cast<std::int64_t*>(idx2.data());
    for (unsigned shift = 0; shift < sizeof(K) * 8; shift += 8) {
        std::int64_t count[257] = {};
        for (std::int64_t i = 0; i < n; ++i) ++count[((k[i] >> shift) & 0xFF) + 1];
        if (count[((k[0] >> shift) & 0xFF) + 1] == n) continue;  // one digit for all: nothing moves
        for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t to = count[(k[i] >> shift) & 0xFF]++;
            k2[to] = k[i];
            if (v) v2[to] = v[i];
            if (x) x2[to] = x[i];
        }
        std::swap(k, k2);
        if (v) std::swap(v, v2);
        if (x) std::swap(x, x2);
    }
    if (v != values) std::copy(v, v + n, values);
    if (x != idx) std::copy(x, x + n, idx);
}

// Rows shorter than this sort by comparison (the radix passes' histograms would dominate).
constexpr std::int64_t k_radix_min = 512;
// A single row at least this long is sorted in halves on two threads, then merged.
constexpr std::int64_t k_split_min = std::int64_t{1} << 20;

bool split_row(const tensor_view& in, engine& eng) {
    const std::int64_t n = in.shape[in.ndim - 1];
    return n >= k_split_min && numel(in) == n && eng.threads() >= 2;
}

// Sorts the halves [0, half) and [half, n) of the pooled buffer `work` (n values, filled by the
// caller) with sort_half(begin, length) on two threads, then merges them by `less` into `out`.
// std::merge takes the first half's element first among equals, so an argsort stays stable.
template <class V, class SortHalf, class Less>
void sort_in_halves(V* work, V* out, std::int64_t n, engine& eng, SortHalf&& sort_half, Less&& less) {
    const std::int64_t half = n / 2;
    eng.parallel_for(2, 1, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t p = b; p < e; ++p) sort_half(p ? half : 0, p ? n - half : half);
    });
    std::merge(work, work + half, work + half, work + n, out, less);
}

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
        if constexpr (fn::is_complex_v<T>) {
            return;  // refused by plan_sort
        } else if (const auto less = [](T a, T b) { return fn::sort_less(a, b); }; split_row(in, eng)) {
            const std::int64_t n = numel(in);
            host_block work(static_cast<std::size_t>(n) * sizeof(T));
            T* w = static_cast<T*>(work.data());
            std::copy(static_cast<const T*>(in.data), static_cast<const T*>(in.data) + n, w);
            sort_in_halves(
                w, static_cast<T*>(out.data), n, eng,
                [&](std::int64_t at, std::int64_t len) {
                    radix_row(w + at, w + at, static_cast<std::int64_t*>(nullptr), len);
                },
                less);
        } else {
            each_row(in, eng, [&](std::int64_t r, std::int64_t n) {
                const T* x = static_cast<const T*>(in.data) + r * n;
                T* o = static_cast<T*>(out.data) + r * n;
                std::copy(x, x + n, o);
                if (n >= k_radix_min)
                    radix_row(o, o, static_cast<std::int64_t*>(nullptr), n);
                else
                    std::sort(o, o + n, less);
            });
        }
    });
    return CB_OK;
}

cb_status argsort(const tensor_view& in, const tensor_view& out, std::string& error, engine& eng) {
    if (cb_status s = plan_sort(true, in, out, error); s != CB_OK) return s;
    dispatch(in.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (fn::is_complex_v<T>) {
            return;  // refused by plan_sort
        } else if (split_row(in, eng)) {
            const std::int64_t n = numel(in);
            const T* x = static_cast<const T*>(in.data);
            host_block work(static_cast<std::size_t>(n) * sizeof(std::int64_t));
            auto* o = static_cast<std::int64_t*>(work.data());
            std::iota(o, o + n, std::int64_t{0});
            sort_in_halves(
                o, static_cast<std::int64_t*>(out.data), n, eng,
                [&](std::int64_t at, std::int64_t len) { radix_row(x + at, static_cast<T*>(nullptr), o + at, len); },
                [x](std::int64_t a, std::int64_t b) { return fn::sort_less(x[a], x[b]); });
        } else {
            each_row(in, eng, [&](std::int64_t r, std::int64_t n) {
                const T* x = static_cast<const T*>(in.data) + r * n;
                std::int64_t* o = static_cast<std::int64_t*>(out.data) + r * n;
                std::iota(o, o + n, std::int64_t{0});
                if (n >= k_radix_min) {
                    radix_row(x, static_cast<T*>(nullptr), o, n);
                } else {
                    std::stable_sort(o, o + n,
                                     [x](std::int64_t a, std::int64_t b) { return fn::sort_less(x[a], x[b]); });
                }
            });
        }
    });
    return CB_OK;
}

}  // namespace cudabridge::nv::kernels

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

// A sort (not an argsort) needs no stability, so its keys alone move and map back to values at
// the end: half the bytes of moving keys and values. These keys are one-to-one but for NaN:
// -0.0 sorts just below +0.0 (equal values, in a valid order) and every NaN becomes the largest
// key, which maps back to a NaN.
template <class T>
auto value_key(T v) {
    using K = decltype(radix_key(T{}));
    if constexpr (!fn::is_float_v<T>) {
        return radix_key(v);
    } else {
        constexpr K sign = K(K(1) << (sizeof(K) * 8 - 1));
        if (v != v) return K(~K(0));
        K bits;
        std::memcpy(&bits, &v, sizeof bits);
        return (bits & sign) ? K(~bits) : K(bits | sign);
    }
}

template <class T, class K>
T value_of_key(K key) {
    if constexpr (std::is_same_v<T, bool>) {
        return key != 0;
    } else if constexpr (fn::is_float_v<T>) {
        constexpr K sign = K(K(1) << (sizeof(K) * 8 - 1));
        const K bits = (key & sign) ? K(key & ~sign) : K(~key);
        T v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    } else {
        constexpr K sign = std::is_signed_v<T> ? K(K(1) << (sizeof(K) * 8 - 1)) : K(0);
        return T(K(key ^ sign));
    }
}

// Stable LSD radix sort of keys k[0, n), n > 0, 8 bits a pass (passes where every key has the same
// digit are skipped), with k2 as the other buffer; indices x (when not null) move with the keys.
// On return k and x point at the sorted arrays (the originals or the second buffers).
template <class K>
void lsd_passes(K*& k, K*& k2, std::int64_t*& x, std::int64_t*& x2, std::int64_t n) {
    for (unsigned shift = 0; shift < sizeof(K) * 8; shift += 8) {
        std::int64_t count[257] = {};
        for (std::int64_t i = 0; i < n; ++i) ++count[((k[i] >> shift) & 0xFF) + 1];
        if (count[((k[0] >> shift) & 0xFF) + 1] == n) continue;  // one digit for all: nothing moves
        for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t to = count[(k[i] >> shift) & 0xFF]++;
            k2[to] = k[i];
            if (x) x2[to] = x[i];
        }
        std::swap(k, k2);
        if (x) std::swap(x, x2);
    }
}

// Sorts the keys of in[0, n) alone; returns the sorted keys, in `keys` or `spare`.
template <class T, class K = decltype(value_key(T{}))>
K* sort_value_keys(const T* in, K* keys, K* spare, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) keys[i] = value_key(in[i]);
    std::int64_t* no_index = nullptr;
    lsd_passes(keys, spare, no_index, no_index, n);
    return keys;
}

// Stable LSD radix argsort of one row: keys by radix_key (equal values, equal keys), the indices
// in idx (filled by the caller) moving with them. The scratch arrays come from host_block's pool:
// a 16M-element sort faulting in 192 MiB of fresh pages on every call spent most of its time there.
template <class T>
void radix_argsort_row(const T* in, std::int64_t* idx, std::int64_t n) {
    using K = decltype(radix_key(T{}));
    const auto count_of = static_cast<std::size_t>(n);
    host_block keys(count_of * sizeof(K)), keys2(count_of * sizeof(K)), idx2(count_of * sizeof(std::int64_t));
    K* k = static_cast<K*>(keys.data());
    K* k2 = static_cast<K*>(keys2.data());
    for (std::int64_t i = 0; i < n; ++i) k[i] = radix_key(in[i]);
    std::int64_t* x = idx;
    std::int64_t* x2 = static_cast<std::int64_t*>(idx2.data());
    lsd_passes(k, k2, x, x2, n);
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

// Merges the sorted keys a[0, na) and b[0, nb) into out as values, on two threads: each writes
// half of the output, from where the merge path crosses that point (a binary search for how many
// of the first d outputs come from a; a's keys go first among equals).
template <class T, class K>
void merge_value_keys(const K* a, std::int64_t na, const K* b, std::int64_t nb, T* out, engine& eng) {
    auto from_a = [&](std::int64_t d) {
        std::int64_t lo = std::max<std::int64_t>(0, d - nb), hi = std::min(d, na);
        while (lo < hi) {
            const std::int64_t i = lo + (hi - lo) / 2;
            if (a[i] <= b[d - i - 1])
                lo = i + 1;
            else
                hi = i;
        }
        return lo;
    };
    const std::int64_t total = na + nb;
    eng.parallel_for(2, 1, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t part = first; part < last; ++part) {
            const std::int64_t d0 = part * (total / 2), d1 = part ? total : total / 2;
            std::int64_t i = from_a(d0), j = d0 - i;
            for (std::int64_t d = d0; d < d1; ++d) {
                const bool take_a = j >= nb || (i < na && a[i] <= b[j]);
                out[d] = value_of_key<T>(take_a ? a[i] : b[j]);
                i += take_a;
                j += !take_a;
            }
        }
    });
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
            return;                       // refused by plan_sort
        } else if (split_row(in, eng)) {  // halves' keys sorted on two threads, merged on two
            using K = decltype(value_key(T{}));
            const std::int64_t n = numel(in), half = n / 2;
            const auto bytes = static_cast<std::size_t>(n) * sizeof(K);
            host_block keys(bytes), spare(bytes);
            const T* x = static_cast<const T*>(in.data);
            K* sorted[2] = {};
            eng.parallel_for(2, 1, [&](std::int64_t first, std::int64_t last) {
                for (std::int64_t p = first; p < last; ++p) {
                    const std::int64_t at = p ? half : 0;
                    sorted[p] = sort_value_keys(x + at, static_cast<K*>(keys.data()) + at,
                                                static_cast<K*>(spare.data()) + at, p ? n - half : half);
                }
            });
            merge_value_keys(sorted[0], half, sorted[1], n - half, static_cast<T*>(out.data), eng);
        } else {
            using K = decltype(value_key(T{}));
            each_row(in, eng, [&](std::int64_t r, std::int64_t n) {
                const T* x = static_cast<const T*>(in.data) + r * n;
                T* o = static_cast<T*>(out.data) + r * n;
                if (n < k_radix_min) {
                    std::copy(x, x + n, o);
                    std::sort(o, o + n, [](T a, T b) { return fn::sort_less(a, b); });
                    return;
                }
                const auto bytes = static_cast<std::size_t>(n) * sizeof(K);
                host_block keys(bytes), spare(bytes);
                const K* k = sort_value_keys(x, static_cast<K*>(keys.data()), static_cast<K*>(spare.data()), n);
                for (std::int64_t i = 0; i < n; ++i) o[i] = value_of_key<T>(k[i]);
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
                [&](std::int64_t at, std::int64_t len) { radix_argsort_row(x + at, o + at, len); },
                [x](std::int64_t a, std::int64_t b) { return fn::sort_less(x[a], x[b]); });
        } else {
            each_row(in, eng, [&](std::int64_t r, std::int64_t n) {
                const T* x = static_cast<const T*>(in.data) + r * n;
                std::int64_t* o = static_cast<std::int64_t*>(out.data) + r * n;
                std::iota(o, o + n, std::int64_t{0});
                if (n >= k_radix_min) {
                    radix_argsort_row(x, o, n);
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

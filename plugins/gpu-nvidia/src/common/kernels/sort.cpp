#include "common/kernels/sort.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>

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

}  // namespace

cb_status plan_sort(bool arg, const tensor_view& in, const tensor_view& out, std::string& error) {
    const std::string what = name_of(arg);
    if (in.ndim < 1) return fail(error, CB_ERR_INVALID_ARGUMENT, what + ": the input must have at least 1 dimension");
    if (!is_contiguous(in) || !is_contiguous(out))
        return fail(error, CB_ERR_INVALID_ARGUMENT, what + ": the input and the output must be contiguous");
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
        each_row(in, eng, [&](std::int64_t r, std::int64_t n) {
            const T* x = static_cast<const T*>(in.data) + r * n;
            T* o = static_cast<T*>(out.data) + r * n;
            std::copy(x, x + n, o);
            std::sort(o, o + n, [](T a, T b) { return fn::sort_less(a, b); });
        });
    });
    return CB_OK;
}

cb_status argsort(const tensor_view& in, const tensor_view& out, std::string& error, engine& eng) {
    if (cb_status s = plan_sort(true, in, out, error); s != CB_OK) return s;
    dispatch(in.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        each_row(in, eng, [&](std::int64_t r, std::int64_t n) {
            const T* x = static_cast<const T*>(in.data) + r * n;
            std::int64_t* o = static_cast<std::int64_t*>(out.data) + r * n;
            std::iota(o, o + n, std::int64_t{0});
            std::stable_sort(o, o + n, [x](std::int64_t a, std::int64_t b) { return fn::sort_less(x[a], x[b]); });
        });
    });
    return CB_OK;
}

}  // namespace cudabridge::nv::kernels

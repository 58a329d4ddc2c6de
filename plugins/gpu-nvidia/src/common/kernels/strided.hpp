// Internal: walks an N-d index space row by row for up to three operands that share one shape.
// Dimensions that are contiguous for every operand are merged first, so a same-shape or
// array-with-scalar operation becomes one long row and the typed inner loop sees plain pointers.
#pragma once

#include <cstdint>

#include "common/kernels/engine.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels::detail {

template <int N>
struct strided_plan {
    int ndim = 0;
    std::int64_t shape[k_max_dims] = {};
    std::int64_t strides[N][k_max_dims] = {};

    // views[k] must all have the same shape.
    explicit strided_plan(const tensor_view* const* views) {
        const tensor_view& v0 = *views[0];
        for (int d = 0; d < v0.ndim; ++d) {
            if (v0.shape[d] == 1) continue;  // extent-1 dims contribute nothing
            bool merge = ndim > 0;
            for (int k = 0; k < N && merge; ++k) merge = strides[k][ndim - 1] == views[k]->strides[d] * v0.shape[d];
            if (merge) {
                shape[ndim - 1] *= v0.shape[d];
                for (int k = 0; k < N; ++k) strides[k][ndim - 1] = views[k]->strides[d];
            } else {
                shape[ndim] = v0.shape[d];
                for (int k = 0; k < N; ++k) strides[k][ndim] = views[k]->strides[d];
                ++ndim;
            }
        }
        if (ndim == 0) {  // a scalar or all-ones shape: one row of one element
            ndim = 1;
            shape[0] = 1;
            for (int k = 0; k < N; ++k) strides[k][0] = 0;
        }
    }

    std::int64_t inner() const { return shape[ndim - 1]; }
    std::int64_t rows() const {
        std::int64_t r = 1;
        for (int d = 0; d < ndim - 1; ++d) r *= shape[d];
        return r;
    }

    // Calls row(offsets[N], len, inner_strides[N]) for every row, in parallel. For a single row
    // the row itself is split into chunks.
    template <class Row>
    void run(engine& eng, Row&& row) const {
        constexpr std::int64_t grain = 1 << 15;  // elements per chunk: amortises the hand-off
        const std::int64_t len = inner();
        const std::int64_t nrows = rows();
        std::int64_t is[N];
        for (int k = 0; k < N; ++k) is[k] = strides[k][ndim - 1];
        if (nrows == 1) {
            eng.parallel_for(len, grain, [&](std::int64_t b, std::int64_t e) {
                std::int64_t off[N];
                for (int k = 0; k < N; ++k) off[k] = b * is[k];
                row(off, e - b, is);
            });
            return;
        }
        std::int64_t row_grain = len >= grain ? 1 : grain / len;
        eng.parallel_for(nrows, row_grain, [&](std::int64_t b, std::int64_t e) {
            for (std::int64_t r = b; r < e; ++r) {
                std::int64_t off[N] = {};
                std::int64_t rem = r;
                for (int d = ndim - 2; d >= 0; --d) {
                    std::int64_t i = rem % shape[d];
                    rem /= shape[d];
                    for (int k = 0; k < N; ++k) off[k] += i * strides[k][d];
                }
                row(off, len, is);
            }
        });
    }
};

}  // namespace cudabridge::nv::kernels::detail

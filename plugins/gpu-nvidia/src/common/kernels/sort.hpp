// Sorting kernels of the CPU engine: each row of the last axis sorted in numpy's ascending order
// (NaN last), or the stable argsort of each row (int64 indices; equal values keep their order).
// Rows of 512 or more go through a stable LSD radix sort on order-preserving keys (what numpy's
// own sorts outrun std::sort by), shorter ones through std::sort / std::stable_sort.
#pragma once

#include "common/errors/fail.hpp"
#include "common/kernels/engine.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

// in and out contiguous with one shape (ndim >= 1); sort: out has in's dtype, argsort: int64.
cb_status plan_sort(bool arg, const tensor_view& in, const tensor_view& out, std::string& error);
cb_status sort(const tensor_view& in, const tensor_view& out, std::string& error, engine& eng = default_engine());
cb_status argsort(const tensor_view& in, const tensor_view& out, std::string& error, engine& eng = default_engine());

}  // namespace cudabridge::nv::kernels

// Indexing kernels of the CPU engine: numpy's take and put over the flat (C-order) elements of a
// contiguous tensor with wrapped int64 indices, and copyto with a boolean where= mask. Callers
// (the Python package) check bounds first when numpy would raise IndexError.
#pragma once

#include "common/errors/fail.hpp"
#include "common/kernels/broadcast.hpp"
#include "common/kernels/engine.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

// out[k] = in.flat[wrap(indices[k], in.size)]: in contiguous; indices int64, broadcast to out's
// shape; out contiguous, in's dtype. Non-empty out needs a non-empty in.
cb_status plan_take(const tensor_view& in, const tensor_view& indices, const tensor_view& out, std::string& error);
cb_status take(const tensor_view& in, const tensor_view& indices, const tensor_view& out, std::string& error,
               engine& eng = default_engine());

// out.flat[wrap(indices[k], out.size)] = values[k], in the order of k (a repeated index keeps the
// last value, as numpy's put): out contiguous; indices int64; values out's dtype, broadcast to
// indices' shape.
cb_status plan_put(const tensor_view& values, const tensor_view& indices, const tensor_view& out, std::string& error);
cb_status put(const tensor_view& values, const tensor_view& indices, const tensor_view& out, std::string& error,
              engine& eng = default_engine());

// numpy's copyto(out, src, where=mask): out[i] = src[i] where mask[i]; src (out's dtype) and mask
// (bool) broadcast to out's shape; any strides.
cb_status plan_copyto(const tensor_view& src, const tensor_view& mask, const tensor_view& out, std::string& error);
cb_status copyto(const tensor_view& src, const tensor_view& mask, const tensor_view& out, std::string& error,
                 engine& eng = default_engine());

}  // namespace cudabridge::nv::kernels

// An owning host tensor (storage + view) for callers that allocate on the host: tests, the bench,
// temporaries inside the CPU engine (whose large blocks host_block.hpp keeps for reuse).
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "common/kernels/host_block.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

class tensor {
public:
    tensor() : view_{} {}
    // Zero-filled.
    tensor(cb_dtype dtype, int ndim, const std::int64_t* shape) : tensor(dtype, ndim, shape, true) {}
    tensor(cb_dtype dtype, std::initializer_list<std::int64_t> shape) {
        view_ = make_view(nullptr, dtype, shape);
        allocate(true);
    }
    // For a temporary the caller writes in full before reading (no zero fill).
    static tensor uninitialized(cb_dtype dtype, int ndim, const std::int64_t* shape) {
        return tensor(dtype, ndim, shape, false);
    }

    tensor_view& view() { return view_; }
    const tensor_view& view() const { return view_; }
    void* data() const { return view_.data; }
    template <class T>
    T* as() const {
        return static_cast<T*>(view_.data);
    }
    std::int64_t size() const { return numel(view_); }
    std::size_t bytes() const { return static_cast<std::size_t>(size()) * dtype_size(view_.dtype); }

private:
    tensor(cb_dtype dtype, int ndim, const std::int64_t* shape, bool zero) {
        view_ = make_view(nullptr, dtype, ndim, shape);
        allocate(zero);
    }
    void allocate(bool zero) {
        // 64-byte aligned so typed loops get full vector loads; never zero-sized.
        storage_ = host_block(bytes());
        view_.data = storage_.data();
        if (zero) std::memset(view_.data, 0, storage_.capacity());
    }
    host_block storage_;
    tensor_view view_;
};

}  // namespace cudabridge::nv::kernels

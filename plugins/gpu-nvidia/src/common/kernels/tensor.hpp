// An owning host tensor (storage + view) for callers that allocate on the host: tests, the bench,
// temporaries inside the CPU engine.
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

class tensor {
public:
    tensor() : view_{} {}
    tensor(cb_dtype dtype, int ndim, const std::int64_t* shape) {
        view_ = make_view(nullptr, dtype, ndim, shape);
        allocate();
    }
    tensor(cb_dtype dtype, std::initializer_list<std::int64_t> shape) {
        view_ = make_view(nullptr, dtype, shape);
        allocate();
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
    void allocate() {
        // 64-byte aligned so typed loops get full vector loads; never zero-sized.
        std::size_t n = (bytes() + 63) / 64 + 1;
        storage_ = std::make_unique<Block[]>(n);
        view_.data = storage_.get();
    }
    struct alignas(64) Block {
        unsigned char b[64];
    };
    std::unique_ptr<Block[]> storage_;
    tensor_view view_;
};

}  // namespace cudabridge::nv::kernels

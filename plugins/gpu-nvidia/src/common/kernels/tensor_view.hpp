// A non-owning, POD description of a tensor in memory (device or host) that kernels read or write.
// Strides are in elements, may be 0 (broadcast) or negative; ndim 0 is a scalar.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "common/kernels/dtype.hpp"

namespace cudabridge::nv::kernels {

inline constexpr int k_max_dims = 8;

struct tensor_view {
    void* data;
    cb_dtype dtype;
    int ndim;
    std::int64_t shape[k_max_dims];
    std::int64_t strides[k_max_dims];  // elements
};

inline std::int64_t numel(const tensor_view& t) {
    std::int64_t n = 1;
    for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
    return n;
}

// Row-major (C-order) strides for t's shape.
inline void set_contiguous_strides(tensor_view& t) {
    std::int64_t s = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
        t.strides[i] = s;
        s *= t.shape[i];
    }
}

inline tensor_view make_view(void* data, cb_dtype dtype, std::initializer_list<std::int64_t> shape) {
    tensor_view t{};
    t.data = data;
    t.dtype = dtype;
    t.ndim = static_cast<int>(shape.size());
    int i = 0;
    for (auto s : shape) t.shape[i++] = s;
    set_contiguous_strides(t);
    return t;
}

inline tensor_view make_view(void* data, cb_dtype dtype, int ndim, const std::int64_t* shape) {
    tensor_view t{};
    t.data = data;
    t.dtype = dtype;
    t.ndim = ndim;
    for (int i = 0; i < ndim; ++i) t.shape[i] = shape[i];
    set_contiguous_strides(t);
    return t;
}

// C-contiguous: dims of extent 1 may carry any stride, as in numpy.
inline bool is_contiguous(const tensor_view& t) {
    std::int64_t s = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
        if (t.shape[i] != 1 && t.strides[i] != s) return numel(t) == 0;
        s *= t.shape[i];
    }
    return true;
}

// "(2,3)" / "(4,)" / "()" as numpy prints shapes.
inline std::string shape_string(int ndim, const std::int64_t* shape) {
    std::string s = "(";
    for (int i = 0; i < ndim; ++i) {
        if (i) s += ",";
        s += std::to_string(shape[i]);
    }
    if (ndim == 1) s += ",";
    return s + ")";
}
inline std::string shape_string(const tensor_view& t) { return shape_string(t.ndim, t.shape); }

}  // namespace cudabridge::nv::kernels

#include "common/kernels/indexing.hpp"

#include <cstdint>
#include <string>

#include "common/kernels/indexing_functors.hpp"
#include "common/kernels/strided.hpp"

namespace cudabridge::nv::kernels {

namespace {

using detail::strided_plan;

// A 16-byte element (complex128), moved as a whole.
struct bytes16 {
    std::uint64_t lo, hi;
};

// Calls f(U{}) with the unsigned type of the dtype's element size: the indexing kernels move
// elements without looking at them.
template <class F>
void by_size(cb_dtype d, F&& f) {
    switch (dtype_size(d)) {
    case 16:
        return f(bytes16{});
    case 1:
        return f(std::uint8_t{});
    case 2:
        return f(std::uint16_t{});
    case 4:
        return f(std::uint32_t{});
    default:
        return f(std::uint64_t{});
    }
}

shape_t shape_of(const tensor_view& t) {
    shape_t s;
    s.ndim = t.ndim;
    for (int i = 0; i < t.ndim; ++i) s.dims[i] = t.shape[i];
    return s;
}

// `from` broadcasts to `to`'s shape (the result of broadcasting both is `to`'s shape).
cb_status check_broadcast(const char* what, const tensor_view& from, const tensor_view& to, std::string& error) {
    shape_t shape;
    if (cb_status s = broadcast_shapes(from, to, shape, error); s != CB_OK) return s;
    bool same = shape.ndim == to.ndim;
    for (int i = 0; same && i < to.ndim; ++i) same = shape.dims[i] == to.shape[i];
    if (!same)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string(what) + ": cannot broadcast " + shape_string(from) + " to " + shape_string(to));
    return CB_OK;
}

cb_status check_indices(const char* what, const tensor_view& indices, std::string& error) {
    if (indices.dtype != CB_DTYPE_INT64)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string(what) + ": indices must be int64, not " + dtype_name(indices.dtype));
    return CB_OK;
}

}  // namespace

cb_status plan_take(const tensor_view& in, const tensor_view& indices, const tensor_view& out, std::string& error) {
    if (cb_status s = check_indices("take", indices, error); s != CB_OK) return s;
    if (out.dtype != in.dtype)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string("take: output dtype ") + dtype_name(out.dtype) + " differs from the input's " +
                        dtype_name(in.dtype));
    if (!is_contiguous(in) || !is_contiguous(out))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "take: the input and the output must be contiguous");
    if (numel(out) > 0 && numel(in) == 0)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "take: cannot take from an empty tensor");
    return check_broadcast("take", indices, out, error);
}

cb_status take(const tensor_view& in, const tensor_view& indices, const tensor_view& out, std::string& error,
               engine& eng) {
    if (cb_status s = plan_take(in, indices, out, error); s != CB_OK) return s;
    if (numel(out) == 0) return CB_OK;
    const std::int64_t n = numel(in);
    const tensor_view idx = broadcast_to(indices, shape_of(out));
    const tensor_view* views[2] = {&out, &idx};
    strided_plan<2> plan(views);
    by_size(in.dtype, [&](auto u) {
        using U = decltype(u);
        const U* src = static_cast<const U*>(in.data);
        plan.run(eng, [&](const std::int64_t* off, std::int64_t len, const std::int64_t* st) {
            U* o = static_cast<U*>(out.data) + off[0];
            const std::int64_t* ix = static_cast<const std::int64_t*>(idx.data) + off[1];
            for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = src[fn::wrap_index(ix[k * st[1]], n)];
        });
    });
    return CB_OK;
}

cb_status plan_put(const tensor_view& values, const tensor_view& indices, const tensor_view& out, std::string& error) {
    if (cb_status s = check_indices("put", indices, error); s != CB_OK) return s;
    if (values.dtype != out.dtype)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string("put: values dtype ") + dtype_name(values.dtype) + " differs from the output's " +
                        dtype_name(out.dtype));
    if (!is_contiguous(out)) return fail(error, CB_ERR_INVALID_ARGUMENT, "put: the output must be contiguous");
    if (numel(indices) > 0 && numel(out) == 0)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "put: cannot put into an empty tensor");
    return check_broadcast("put", values, indices, error);
}

cb_status put(const tensor_view& values, const tensor_view& indices, const tensor_view& out, std::string& error,
              engine&) {
    if (cb_status s = plan_put(values, indices, out, error); s != CB_OK) return s;
    const std::int64_t count = numel(indices);
    if (count == 0) return CB_OK;
    const std::int64_t n = numel(out);
    const tensor_view vals = broadcast_to(values, shape_of(indices));
    // In index order on one thread: a repeated index keeps the last value, as numpy's put.
    by_size(out.dtype, [&](auto u) {
        using U = decltype(u);
        U* o = static_cast<U*>(out.data);
        std::int64_t pos[k_max_dims] = {};
        for (std::int64_t k = 0; k < count; ++k) {
            std::int64_t vo = 0, io = 0;
            for (int d = 0; d < indices.ndim; ++d) {
                vo += pos[d] * vals.strides[d];
                io += pos[d] * indices.strides[d];
            }
            o[fn::wrap_index(static_cast<const std::int64_t*>(indices.data)[io], n)] =
                static_cast<const U*>(vals.data)[vo];
            for (int d = indices.ndim - 1; d >= 0 && ++pos[d] == indices.shape[d]; --d) pos[d] = 0;
        }
    });
    return CB_OK;
}

cb_status plan_copyto(const tensor_view& src, const tensor_view& mask, const tensor_view& out, std::string& error) {
    if (src.dtype != out.dtype)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string("copyto: source dtype ") + dtype_name(src.dtype) + " differs from the output's " +
                        dtype_name(out.dtype));
    if (mask.dtype != CB_DTYPE_BOOL)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string("copyto: the mask must be bool, not ") + dtype_name(mask.dtype));
    if (cb_status s = check_broadcast("copyto", src, out, error); s != CB_OK) return s;
    return check_broadcast("copyto", mask, out, error);
}

cb_status copyto(const tensor_view& src, const tensor_view& mask, const tensor_view& out, std::string& error,
                 engine& eng) {
    if (cb_status s = plan_copyto(src, mask, out, error); s != CB_OK) return s;
    if (numel(out) == 0) return CB_OK;
    const shape_t shape = shape_of(out);
    const tensor_view s = broadcast_to(src, shape), m = broadcast_to(mask, shape);
    const tensor_view* views[3] = {&out, &s, &m};
    strided_plan<3> plan(views);
    by_size(out.dtype, [&](auto u) {
        using U = decltype(u);
        plan.run(eng, [&](const std::int64_t* off, std::int64_t len, const std::int64_t* st) {
            U* o = static_cast<U*>(out.data) + off[0];
            const U* x = static_cast<const U*>(s.data) + off[1];
            const bool* w = static_cast<const bool*>(m.data) + off[2];
            for (std::int64_t k = 0; k < len; ++k)
                if (w[k * st[2]]) o[k * st[0]] = x[k * st[1]];
        });
    });
    return CB_OK;
}

}  // namespace cudabridge::nv::kernels

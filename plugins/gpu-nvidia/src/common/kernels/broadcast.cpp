#include "common/kernels/broadcast.hpp"

namespace cudabridge::nv::kernels {

cb_status broadcast_shapes(const tensor_view& a, const tensor_view& b, shape_t& out, std::string& error) {
    int n = a.ndim > b.ndim ? a.ndim : b.ndim;
    out.ndim = n;
    for (int i = 0; i < n; ++i) {  // i counts from the right
        std::int64_t da = i < a.ndim ? a.shape[a.ndim - 1 - i] : 1;
        std::int64_t db = i < b.ndim ? b.shape[b.ndim - 1 - i] : 1;
        if (da != db && da != 1 && db != 1)
            return fail(
                error, CB_ERR_INVALID_ARGUMENT,
                "operands could not be broadcast together with shapes " + shape_string(a) + " " + shape_string(b));
        out.dims[n - 1 - i] = da == 1 ? db : da;
    }
    return CB_OK;
}

tensor_view broadcast_to(const tensor_view& t, const shape_t& shape) {
    tensor_view v = t;
    v.ndim = shape.ndim;
    int lead = shape.ndim - t.ndim;
    for (int i = 0; i < shape.ndim; ++i) {
        v.shape[i] = shape.dims[i];
        if (i < lead)
            v.strides[i] = 0;
        else
            v.strides[i] = t.shape[i - lead] == 1 ? 0 : t.strides[i - lead];
    }
    return v;
}

}  // namespace cudabridge::nv::kernels

#include "nvidia_driver/kernel_driver/nd_layout_plan.hpp"

#include "common/kernels/strided.hpp"

namespace cudabridge::nv {

namespace {

template <int N>
cuda_kernels::nd_layout from_plan(const kernels::tensor_view* const* views) {
    const kernels::detail::strided_plan<N> plan(views);
    cuda_kernels::nd_layout layout{};
    layout.ndim = plan.ndim;
    for (int d = 0; d < plan.ndim; ++d) {
        layout.shape[d] = plan.shape[d];
        for (int k = 0; k < N; ++k) layout.strides[k][d] = plan.strides[k][d];
    }
    return layout;
}

}  // namespace

cuda_kernels::nd_layout make_nd_layout(const kernels::tensor_view* const* views, int count) {
    switch (count) {
    case 1:
        return from_plan<1>(views);
    case 2:
        return from_plan<2>(views);
    default:
        return from_plan<3>(views);
    }
}

}  // namespace cudabridge::nv

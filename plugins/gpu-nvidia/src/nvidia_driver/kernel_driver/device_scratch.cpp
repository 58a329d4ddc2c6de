#include "nvidia_driver/kernel_driver/device_scratch.hpp"

namespace cudabridge::nv {

device_scratch::~device_scratch() {
    const cuda_api& api = driver_.api();
    for (cu::CUdeviceptr p : pooled_) (void)api.cuMemFreeAsync(p, stream_);
    if (!plain_.empty()) {
        (void)api.cuStreamSynchronize(stream_);
        for (cu::CUdeviceptr p : plain_) (void)api.cuMemFree(p);
    }
}

kernels::status device_scratch::allocate(uint64_t bytes, uint64_t& out) {
    const cuda_api& api = driver_.api();
    cu::CUdeviceptr p = 0;
    const std::size_t size = bytes == 0 ? 1 : static_cast<std::size_t>(bytes);
    if (api.cuMemAllocAsync != nullptr) {
        cu::CUresult r = api.cuMemAllocAsync(&p, size, stream_);
        if (r == cu::CUDA_SUCCESS) {
            pooled_.push_back(p);
            out = p;
            return {};
        }
        if (r != cu::CUDA_ERROR_NOT_SUPPORTED) {
            std::string message;
            cb_status s = driver_.check(r, "temporary device memory (cuMemAllocAsync)", &message);
            return {s, message};
        }
    }
    cu::CUresult r = api.cuMemAlloc(&p, size);
    if (r != cu::CUDA_SUCCESS) {
        std::string message;
        cb_status s = driver_.check(r, "temporary device memory (cuMemAlloc_v2)", &message);
        return {s, message};
    }
    plain_.push_back(p);
    out = p;
    return {};
}

}  // namespace cudabridge::nv

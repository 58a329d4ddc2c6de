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

cb_status device_scratch::allocate(uint64_t bytes, uint64_t& out, std::string& error) {
    const cuda_api& api = driver_.api();
    cu::CUdeviceptr p = 0;
    const std::size_t size = bytes == 0 ? 1 : static_cast<std::size_t>(bytes);
    if (api.cuMemAllocAsync != nullptr) {
        cu::CUresult r = api.cuMemAllocAsync(&p, size, stream_);
        if (r == cu::CUDA_SUCCESS) {
            pooled_.push_back(p);
            out = p;
            return CB_OK;
        }
        if (r != cu::CUDA_ERROR_NOT_SUPPORTED)
            return driver_.check(r, "temporary device memory (cuMemAllocAsync)", &error);
    }
    cu::CUresult r = api.cuMemAlloc(&p, size);
    if (r != cu::CUDA_SUCCESS) return driver_.check(r, "temporary device memory (cuMemAlloc_v2)", &error);
    plain_.push_back(p);
    out = p;
    return CB_OK;
}

}  // namespace cudabridge::nv

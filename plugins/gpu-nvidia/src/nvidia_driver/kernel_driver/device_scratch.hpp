// Temporary device buffers for one built-in launch (converted operands, reduction partials),
// stream-ordered: allocated and freed on the launch's stream with cuMemAllocAsync /
// cuMemFreeAsync, so nothing waits. Drivers without memory pools (older than CUDA 11.2, or
// devices that refuse them) get cuMemAlloc and a stream synchronize before the free.
#pragma once

#include <cstdint>
#include <vector>

#include "nvidia_driver/cuda_driver/cuda_driver.hpp"
#include "common/errors/fail.hpp"

namespace cudabridge::nv {

class device_scratch {
public:
    device_scratch(const cuda_driver& driver, cu::CUstream stream) : driver_(driver), stream_(stream) {}
    ~device_scratch();
    device_scratch(const device_scratch&) = delete;
    device_scratch& operator=(const device_scratch&) = delete;

    cb_status allocate(uint64_t bytes, uint64_t& out, std::string& error);

private:
    const cuda_driver& driver_;
    cu::CUstream stream_;
    std::vector<cu::CUdeviceptr> pooled_;  // freed with cuMemFreeAsync
    std::vector<cu::CUdeviceptr> plain_;   // freed with cuMemFree after a synchronize
};

}  // namespace cudabridge::nv

// cb_kernel_arg values packed for cuLaunchKernel's kernelParams: one pointer per parameter to
// storage holding the value in the parameter's size. With the kernel's parameter sizes (from
// cuFuncGetParamInfo, CUDA 12.4+) scalars are narrowed to them (FLOAT64 -> float for a 4-byte
// parameter, INT64 -> int32 ...), out-of-range integers and wrong sizes refused; without them,
// every scalar travels as 8 bytes and CB_ARG_BYTES as its own bytes.
#pragma once

#include <cudabridge/gpu.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/errors/fail.hpp"

namespace cudabridge::nv {

class packed_kernel_args {
public:
    // `param_sizes`: the kernel's parameter sizes in bytes, when known.
    cb_status pack(const cb_kernel_launch& launch, const std::optional<std::vector<std::size_t>>& param_sizes,
                   std::string& error);

    // kernelParams for cuLaunchKernel (nullptr when there are no arguments); valid while *this lives.
    void** params() { return pointers_.empty() ? nullptr : pointers_.data(); }

private:
    std::vector<std::vector<unsigned char>> storage_;
    std::vector<void*> pointers_;
};

}  // namespace cudabridge::nv

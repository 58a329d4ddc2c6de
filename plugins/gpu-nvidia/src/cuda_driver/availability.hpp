// Whether a vendor library is usable here, and if not, why.
#pragma once

#include <cudabridge/abi.h>

#include <string>

namespace cudabridge::nv {

struct availability {
    bool available = false;
    cb_status status = CB_ERR_NO_DEVICE;  // CB_OK when available
    std::string reason;                    // human-readable; empty when available
    int driver_version = 0;                // CUDA: 1000*major + 10*minor (13000); NVML: 0
    int device_count = 0;
};

}  // namespace cudabridge::nv

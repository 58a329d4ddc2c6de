// The nvidia family's parameters (declared with the host, so `config` lists and checks them),
// read once when the instance is created.
#pragma once

#include <cudabridge/cpp/host.hpp>

#include <cstdint>
#include <string>

namespace cudabridge::nv {

struct family_options {
    unsigned compute_threads = 0;  // simulator compute engine; 0 = all cores
    std::string cuda_library = "libcuda.so.1";
    std::string nvml_library = "libnvidia-ml.so.1";
    uint64_t timeout_ms = 30000;  // userspace driver: longest wait for the device
    uint64_t staging_chunk_bytes = 64ull << 20;
    bool use_interrupts = true;  // userspace driver: else poll the fence
    bool live_state = true;      // simulator: share live state through a file
};

// Declares every parameter, then reads the effective values.
family_options declare_and_read_options(const sdk::host& h);

}  // namespace cudabridge::nv

// A device's limits as CUDA reports them: from the runtime's device properties (the GPU's
// profile on a simulated eGPU, the driver on a real one), and for what those do not carry, the
// per-compute-capability figures of the CUDA C++ Programming Guide ("Technical Specifications per
// Compute Capability").
#pragma once

#include "cuda_types.hpp"

#include <cudabridge.h>

#include <string>

namespace cudabridge::cudart {

struct device_limits {
    int major = 0, minor = 0;
    int max_threads_per_block = 1024;
    int max_block[3] = {1024, 1024, 64};
    int max_grid[3] = {2147483647, 65535, 65535};
    int multiprocessors = 0;
    int warp_size = 32;
    int max_threads_per_sm = 0;
    int max_blocks_per_sm = 0;
    int registers_per_sm = 65536;
    size_t shared_memory_per_block = 48 * 1024;
    size_t shared_memory_per_block_optin = 48 * 1024;
    size_t shared_memory_per_sm = 0;
};

device_limits limits_of(const cbDeviceProp& p);
// The current device's (cached per device: properties do not change while a program runs).
cudaError_t current_device_limits(device_limits& out);
cudaError_t device_properties(int device, cbDeviceProp& out);

// Resident blocks per multiprocessor for a block size and dynamic shared memory, from the
// thread, block and shared-memory limits (registers are not modeled: the simulator allocates none).
int occupancy_blocks(const device_limits& l, int block_size, size_t dynamic_shared);

// CUDA 13's cudaDeviceProp for a device.
void fill_cuda_properties(const cbDeviceProp& p, cudaDeviceProp& out);

// What CUDA refuses before anything reaches the device: cudaErrorInvalidConfiguration for a zero or
// too large grid or block, cudaErrorInvalidValue for more shared memory than a block may have.
cudaError_t check_launch_configuration(const device_limits& l, dim3 grid, dim3 block, size_t shared_memory);

// A cooperative launch has every block resident at once: at most what the device's
// multiprocessors hold together (the occupancy of one times their number), as CUDA requires. Why
// `kernel`'s grid is past that (cudaErrorCooperativeLaunchTooLarge), or "" when it fits.
std::string cooperative_grid_too_large(const device_limits& l, dim3 grid, dim3 block, size_t shared_memory,
                                       const std::string& kernel);

}  // namespace cudabridge::cudart

// Opening a device on each backend, as a device_backend. The adapters live beside their backend
// glue: userspace_device_backend.cpp and kernel_driver_device_backend.cpp.
#pragma once

#include "plugin/device_backend.hpp"
#include "plugin/family_options.hpp"

#include <cudabridge/gpu.h>

#include <memory>

namespace cudabridge::nv {

class kernel_driver_backend;
class module_registry;

// The userspace driver over params.transport / params.link: probes, resets and initialises the GPU.
// `modules`: the family's registry, shared with the simulated GPUs it creates.
std::unique_ptr<device_backend> open_userspace_device(const cb_gpu_open_params& params, const family_options& options,
                                                      std::shared_ptr<module_registry> modules);

// A GPU the CUDA driver sees, by ordinal.
std::unique_ptr<device_backend> open_kernel_driver_device(kernel_driver_backend& driver, int ordinal);

}  // namespace cudabridge::nv

// The user modules a GPU family has loaded for its simulated GPUs, by id: what the userspace
// driver and the simulated GPU it drives share. The driver adds a module at module_load and
// names it by id in each launch block; the device model's compute engine looks the id up when it
// runs the launch, as a real GPU finds code the driver loaded into its memory. A module is either
// a table of C functions (CB_MODULE_HOST_KERNELS) or PTX the engine compiled (CB_MODULE_PTX,
// FATBIN, CUDA_SOURCE). One registry per family instance (it hands the same one to the models it
// creates and the devices it opens); thread safe.
//
// A module stays alive while a launch that found it runs, even if it is removed meanwhile (the
// lookups hand out shared ownership), so removing never pulls code from under a kernel; the
// driver still waits for queued launches before removing (module_unload).
#pragma once

#include "common/host_kernels/host_kernel_module.hpp"
#include "sim/ptx/kernel_module.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace cudabridge::nv {

// Exactly one of the two is set.
struct registered_module {
    std::shared_ptr<const host_kernel_module> host_kernels;
    std::shared_ptr<const ptx::kernel_module> ptx;

    explicit operator bool() const { return host_kernels || ptx; }
};

class module_registry {
public:
    // Ids start at 1 and are never reused.
    uint64_t add(registered_module module);
    // False when `id` is not registered.
    bool remove(uint64_t id);
    // Empty when `id` is not registered.
    registered_module find(uint64_t id) const;
    size_t size() const;

private:
    mutable std::mutex mutex_;
    uint64_t next_id_ = 1;
    std::map<uint64_t, registered_module> modules_;
};

}  // namespace cudabridge::nv

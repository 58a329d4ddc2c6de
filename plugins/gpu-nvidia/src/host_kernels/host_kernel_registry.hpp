// The host-kernel modules a GPU family has loaded, by id: what the userspace driver and the
// simulated GPU it drives share. The driver adds a module at module_load and names it by id in
// each launch block; the device model's compute engine looks the id up when it runs the launch,
// as a real GPU finds code the driver loaded into its memory. One registry per family instance
// (it hands the same one to the models it creates and the devices it opens); thread safe.
//
// A module stays alive while a launch that found it runs, even if it is removed meanwhile (the
// lookups hand out shared ownership), so removing never pulls a function table from under a
// kernel; the driver still waits for queued launches before removing (module_unload).
#pragma once

#include "host_kernels/host_kernel_module.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace cudabridge::nv {

class host_kernel_registry {
public:
    // Ids start at 1 and are never reused.
    uint64_t add(std::shared_ptr<const host_kernel_module> module);
    // False when `id` is not registered.
    bool remove(uint64_t id);
    // Null when `id` is not registered.
    std::shared_ptr<const host_kernel_module> find(uint64_t id) const;
    size_t size() const;

private:
    mutable std::mutex mutex_;
    uint64_t next_id_ = 1;
    std::map<uint64_t, std::shared_ptr<const host_kernel_module>> modules_;
};

}  // namespace cudabridge::nv

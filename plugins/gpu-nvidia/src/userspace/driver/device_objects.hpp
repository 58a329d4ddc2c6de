// What the opaque stream, event and module handles of userspace_device hold, and its pinned
// host ranges.
#pragma once

#include "userspace/driver/dma_mapping.hpp"
#include "userspace/driver/error_sink.hpp"
#include "userspace/driver/timestamp_slots.hpp"

#include "common/host_kernels/host_kernel_module.hpp"
#include "sim/ptx/kernel_module.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>

namespace cudabridge::nv {

struct userspace_stream {
    std::atomic<uint64_t> last_fence{0};                                  // the last command it queued
    std::shared_ptr<error_sink> errors = std::make_shared<error_sink>();  // its failures
};

// Moves `target` up to `value` (never down), whatever other threads do meanwhile.
inline void raise_to(std::atomic<uint64_t>& target, uint64_t value) {
    uint64_t seen = target.load();
    while (seen < value && !target.compare_exchange_weak(seen, value)) {
    }
}

struct userspace_event {
    timestamp_slot stamp;  // the host word its timestamp command writes
    uint64_t fence = 0;    // of the last record; guarded by the device's objects mutex
    bool recorded = false;
};

// Host memory registered with host_register: mapped once, used by every copy inside it.
struct pinned_range {
    uintptr_t start = 0;
    size_t size = 0;
    dma_mapping mapping;
    std::atomic<uint64_t> last_fence{0};  // the last copy queued through it

    bool holds(uintptr_t first, size_t bytes) const {
        return first >= start && first - start <= size && bytes <= size - (first - start);
    }
};

// A loaded user module: its id in the family's module_registry and its code, host kernels or
// compiled PTX (exactly one is set).
struct userspace_module {
    std::shared_ptr<const host_kernel_module> module;
    std::shared_ptr<const ptx::kernel_module> ptx;
    uint64_t registry_id = 0;
    uint64_t symbols = 0;                 // its .global and .const variables in VRAM (0: it has none)
    std::atomic<uint64_t> last_fence{0};  // the last launch queued from it
    // Launches hold it shared from the check to the submission; unload takes it to set
    // `unloading`, so no launch slips in after unload read last_fence.
    std::shared_mutex use;
    bool unloading = false;  // guarded by `use`
};

}  // namespace cudabridge::nv

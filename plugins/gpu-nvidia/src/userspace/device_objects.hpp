// What the opaque stream and event handles of userspace_device hold.
#pragma once

#include "userspace/error_sink.hpp"
#include "userspace/timestamp_slots.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace cudabridge::nv {

struct userspace_stream {
    std::atomic<uint64_t> last_fence{0};                          // the last command it queued
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

}  // namespace cudabridge::nv

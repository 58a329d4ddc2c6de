// How the userspace driver waits, stages copies and sizes its command ring. Plain data; the
// plugin fills it from its parameters.
#pragma once

#include <cstdint>

namespace cudabridge::nv {

struct userspace_options {
    uint64_t timeout_ms = 30000;                 // longest wait for one fence or for ring space
    uint64_t staging_chunk_bytes = 64ull << 20;  // a large host copy moves in chunks of this size
                                                 // (less when the IOMMU cannot hold two of them)
    uint32_t ring_entries = 1024;                // commands in the ring; a power of two, 2..65536
    uint64_t launch_arena_bytes = 256ull << 10;  // host memory launch blocks travel from (rounded
                                                 // up to whole pages): room for about 500 queued
                                                 // built-in launches, more than the largest block
    bool use_interrupts = true;                  // false: poll the fence every poll_interval_us
    uint64_t poll_interval_us = 100;             // polling period, and the re-check period of a
                                                 // wait that expects an interrupt
};

}  // namespace cudabridge::nv

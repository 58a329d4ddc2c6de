// Where launch blocks travel from: one host buffer, mapped for the device once, used as a ring
// (a GPU driver's push buffer). A launch takes the next free bytes; they come back when the
// device has completed the command that reads them. Mapping (and zeroing) a buffer per launch
// cost more than the launch itself, and one mapping keeps the IOMMU's use flat whatever the
// queue depth.
//
// Not thread-safe: the caller serializes reserve and commit (and keeps them in fence order).
#pragma once

#include "userspace/driver/dma_mapping.hpp"
#include "userspace/driver/host_buffer.hpp"
#include "userspace/driver/link_port.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

namespace cudabridge::nv {

// Bytes reserved for one launch block: where the host writes it and where the device reads it.
struct arena_slot {
    std::byte* data = nullptr;
    uint64_t iova = 0;
    size_t start = 0;
    size_t end = 0;
};

class launch_arena {
public:
    // Every block is placed on this boundary.
    static constexpr size_t alignment = 64;

    // Allocates `bytes` (a multiple of `page_size`) and maps them for device reads.
    cb_status create(link_port& port, size_t bytes, size_t page_size, std::string& error);
    // Unmaps and frees; every reservation is forgotten.
    void release();
    bool ready() const noexcept { return mapping_.mapped(); }
    size_t capacity() const noexcept { return memory_.size(); }

    // Gives back the blocks of commands up to `completed_fence`, then finds `size` bytes; false
    // when they are still in use (wait for oldest_fence() and try again). `size` must be at most
    // capacity().
    bool reserve(size_t size, uint64_t completed_fence, arena_slot& out);
    // The reservation now belongs to the command carrying `fence` (fences increase).
    void commit(const arena_slot& slot, uint64_t fence);
    // The fence whose completion frees the oldest block in use; 0 when none is.
    uint64_t oldest_fence() const { return in_use_.empty() ? 0 : in_use_.front().fence; }

private:
    struct use {
        uint64_t fence;
        size_t start, end;
    };
    bool place(size_t size, size_t& start) const;

    host_buffer memory_;
    dma_mapping mapping_;
    std::deque<use> in_use_;  // in fence order, which is also the order of their bytes (wrapping)
};

}  // namespace cudabridge::nv

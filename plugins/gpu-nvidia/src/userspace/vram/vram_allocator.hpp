// The userspace driver's VRAM allocator: hands out device addresses from one range
// [base, base + size) of a GPU's memory. Best fit (the smallest free block that holds the
// request, lowest address on ties), free neighbours coalesced on every free, power-of-two
// alignment. O(log n) per operation: free blocks are indexed both by address (for coalescing)
// and by (size, address) (for best fit). Thread safe: one mutex guards all state.
//
// Granule and default alignment: 256 bytes, because the CUDA C++ Programming Guide ("Device
// Memory Accesses") states that any address returned by the driver or runtime allocation
// routines is aligned to at least 256 bytes; code written for cudaMalloc/cuMemAlloc relies on it.
// Every block length is a multiple of the granule, so requests are rounded up to it.
#pragma once

#include <cudabridge/abi.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace cudabridge::nv {

struct vram_stats {
    uint64_t total = 0;      // bytes in the managed range
    uint64_t used = 0;       // bytes reserved by live allocations (granule-rounded)
    uint64_t requested = 0;  // bytes the live allocations asked for
    uint64_t free = 0;       // total - used
    uint64_t largest_free_block = 0;
    uint64_t free_block_count = 0;
    double fragmentation = 0.0;  // 1 - largest_free_block / free (0 when nothing is free)
    uint64_t peak_used = 0;
    uint64_t allocation_count = 0;    // live allocations
    uint64_t allocations_total = 0;   // successful allocate() calls since construction
    uint64_t failed_allocations = 0;  // allocate() calls answered CB_ERR_OUT_OF_MEMORY
};

struct vram_block {
    uint64_t address = 0;
    uint64_t size = 0;
    friend bool operator==(const vram_block&, const vram_block&) = default;
};

class vram_allocator {
public:
    static constexpr uint64_t default_alignment = 256;

    // Manages [base, base + size). `granule` (a power of two, default 256) is the unit every
    // block is rounded to; base and size must be multiples of it and size > 0, and the range must
    // not wrap past 2^64; otherwise std::invalid_argument is thrown.
    vram_allocator(uint64_t base, uint64_t size, uint64_t granule = default_alignment);

    vram_allocator(const vram_allocator&) = delete;
    vram_allocator& operator=(const vram_allocator&) = delete;

    // Reserves `size` bytes at an address that is a multiple of `alignment` (a power of two; 0
    // means the default 256; smaller alignments than the granule get the granule).
    // CB_ERR_INVALID_ARGUMENT: size 0 or alignment not a power of two.
    // CB_ERR_OUT_OF_MEMORY: no free block holds it (state unchanged).
    cb_status allocate(uint64_t size, uint64_t alignment, uint64_t& out);
    cb_status allocate(uint64_t size, uint64_t& out) { return allocate(size, 0, out); }

    // Releases the allocation starting at `address`. An address that is not the start of a live
    // allocation (unknown, interior, or already freed) is CB_ERR_INVALID_ARGUMENT and changes nothing.
    cb_status free(uint64_t address);

    // The live allocation containing `address` (start, and the size that was asked for).
    bool find(uint64_t address, vram_block& allocation) const;

    vram_stats stats() const;
    std::vector<vram_block> free_blocks() const;  // by address
    std::vector<vram_block> allocations() const;  // by address; sizes as reserved (rounded)

    uint64_t base() const noexcept { return base_; }
    uint64_t size() const noexcept { return size_; }
    uint64_t granule() const noexcept { return granule_; }

private:
    struct live {
        uint64_t reserved = 0;   // granule-rounded length
        uint64_t requested = 0;  // what the caller asked for
    };

    void insert_free(uint64_t address, uint64_t size);  // no coalescing; caller holds mutex_
    void erase_free(std::map<uint64_t, uint64_t>::iterator it);

    const uint64_t base_;
    const uint64_t size_;
    const uint64_t granule_;

    mutable std::mutex mutex_;
    std::map<uint64_t, uint64_t> free_by_address_;          // address -> size
    std::set<std::pair<uint64_t, uint64_t>> free_by_size_;  // (size, address)
    std::map<uint64_t, live> allocated_;                    // address -> allocation
    uint64_t used_ = 0;
    uint64_t requested_ = 0;
    uint64_t peak_used_ = 0;
    uint64_t allocations_total_ = 0;
    uint64_t failed_allocations_ = 0;
};

}  // namespace cudabridge::nv

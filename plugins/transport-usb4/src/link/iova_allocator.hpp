// The IOMMU's address allocator: hands out page-aligned ranges of the device address space
// (IOVA) between a non-zero base and an end.
//
// An address-ordered free list (a map from start to length) searched first-fit, with freed
// ranges merged into their free neighbours. Sequential maps therefore take consecutive addresses
// from one large free range (O(log n) each); after frees, the lowest hole that fits is reused,
// which keeps the used space compact. The base is non-zero so that IOVA 0 — what a device reads
// through a null or uninitialised pointer — never translates.
//
// Not thread safe: the iommu that owns it holds its lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace cudabridge::usb4 {

class iova_allocator {
public:
    // [base, end), both multiples of `page`; page a power of two.
    iova_allocator(uint64_t base, uint64_t end, uint64_t page);

    // A range of `size` bytes (a non-zero multiple of the page), or nullopt when no free range
    // is large enough.
    std::optional<uint64_t> allocate(uint64_t size);
    // Return a range previously allocated, exactly as allocated.
    void release(uint64_t start, uint64_t size);
    // Everything free again.
    void reset();

    uint64_t free_bytes() const noexcept { return free_bytes_; }
    size_t free_ranges() const noexcept { return free_.size(); }
    uint64_t base() const noexcept { return base_; }
    uint64_t end() const noexcept { return end_; }

private:
    uint64_t base_;
    uint64_t end_;
    uint64_t page_;
    uint64_t free_bytes_ = 0;
    std::map<uint64_t, uint64_t> free_;  // start -> length, address order, never adjacent
};

}  // namespace cudabridge::usb4

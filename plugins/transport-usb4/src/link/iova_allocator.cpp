// First-fit IOVA allocation over an address-ordered, coalescing free list.
#include "link/iova_allocator.hpp"

#include <iterator>
#include <stdexcept>

namespace cudabridge::usb4 {

iova_allocator::iova_allocator(uint64_t base, uint64_t end, uint64_t page) : base_(base), end_(end), page_(page) {
    if (page == 0 || (page & (page - 1)) != 0 || base % page != 0 || end % page != 0 || base == 0 || end <= base)
        throw std::invalid_argument("iova_allocator: bad aperture or page size");
    reset();
}

void iova_allocator::reset() {
    free_.clear();
    free_.emplace(base_, end_ - base_);
    free_bytes_ = end_ - base_;
}

std::optional<uint64_t> iova_allocator::allocate(uint64_t size) {
    if (size == 0 || size % page_ != 0 || size > free_bytes_) return std::nullopt;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
        if (it->second < size) continue;
        const uint64_t start = it->first;
        const uint64_t rest = it->second - size;
        // Keep the tail of the range free; the map key changes, so re-insert with a hint.
        auto next = free_.erase(it);
        if (rest != 0) free_.emplace_hint(next, start + size, rest);
        free_bytes_ -= size;
        return start;
    }
    return std::nullopt;
}

void iova_allocator::release(uint64_t start, uint64_t size) {
    uint64_t end = start + size;
    auto next = free_.lower_bound(start);
    // Merge with the free range that ends where this one starts...
    if (next != free_.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == start) {
            start = prev->first;
            free_.erase(prev);
        }
    }
    // ...and with the one that starts where this one ends.
    if (next != free_.end() && next->first == end) {
        end += next->second;
        next = free_.erase(next);
    }
    free_.emplace_hint(next, start, end - start);
    free_bytes_ += size;
}

}  // namespace cudabridge::usb4

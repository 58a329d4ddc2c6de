#include "userspace/vram/vram_allocator.hpp"

#include <iterator>
#include <limits>
#include <stdexcept>

namespace cudabridge::nv {
namespace {

constexpr bool is_power_of_two(uint64_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

// Rounds up to a multiple of `align` (a power of two); false on overflow.
constexpr bool round_up(uint64_t v, uint64_t align, uint64_t& out) noexcept {
    const uint64_t mask = align - 1;
    if (v > std::numeric_limits<uint64_t>::max() - mask) return false;
    out = (v + mask) & ~mask;
    return true;
}

}  // namespace

vram_allocator::vram_allocator(uint64_t base, uint64_t size, uint64_t granule)
    : base_(base), size_(size), granule_(granule) {
    if (!is_power_of_two(granule)) throw std::invalid_argument("vram_allocator: granule must be a power of two");
    if (size == 0) throw std::invalid_argument("vram_allocator: empty range");
    if (base % granule != 0 || size % granule != 0)
        throw std::invalid_argument("vram_allocator: base and size must be multiples of the granule");
    if (base > std::numeric_limits<uint64_t>::max() - size + 1)
        throw std::invalid_argument("vram_allocator: range wraps past 2^64");
    insert_free(base, size);
}

void vram_allocator::insert_free(uint64_t address, uint64_t size) {
    free_by_address_.emplace(address, size);
    free_by_size_.emplace(size, address);
}

void vram_allocator::erase_free(std::map<uint64_t, uint64_t>::iterator it) {
    free_by_size_.erase({it->second, it->first});
    free_by_address_.erase(it);
}

cb_status vram_allocator::allocate(uint64_t size, uint64_t alignment, uint64_t& out) {
    if (size == 0) return CB_ERR_INVALID_ARGUMENT;
    if (alignment == 0) alignment = default_alignment;
    if (!is_power_of_two(alignment)) return CB_ERR_INVALID_ARGUMENT;
    if (alignment < granule_) alignment = granule_;

    std::lock_guard lock(mutex_);
    uint64_t length = 0;
    if (!round_up(size, granule_, length) || length > size_) {
        ++failed_allocations_;
        return CB_ERR_OUT_OF_MEMORY;
    }
    // Smallest block first. Blocks of at least length + alignment - granule always fit, so the
    // scan past blocks that fail only for alignment padding is short.
    for (auto it = free_by_size_.lower_bound({length, 0}); it != free_by_size_.end(); ++it) {
        const auto [block_size, block_address] = *it;
        uint64_t start = 0;
        if (!round_up(block_address, alignment, start)) continue;
        const uint64_t padding = start - block_address;
        if (padding > block_size || block_size - padding < length) continue;

        erase_free(free_by_address_.find(block_address));
        if (padding != 0) insert_free(block_address, padding);
        const uint64_t tail = block_size - padding - length;
        if (tail != 0) insert_free(start + length, tail);

        allocated_.emplace(start, live{length, size});
        used_ += length;
        requested_ += size;
        if (used_ > peak_used_) peak_used_ = used_;
        ++allocations_total_;
        out = start;
        return CB_OK;
    }
    ++failed_allocations_;
    return CB_ERR_OUT_OF_MEMORY;
}

cb_status vram_allocator::free(uint64_t address) {
    std::lock_guard lock(mutex_);
    const auto found = allocated_.find(address);
    if (found == allocated_.end()) return CB_ERR_INVALID_ARGUMENT;
    const uint64_t end = address + found->second.reserved;
    uint64_t start = address;
    uint64_t length = found->second.reserved;
    used_ -= found->second.reserved;
    requested_ -= found->second.requested;
    allocated_.erase(found);

    // Coalesce with the free neighbour after, then the one before.
    auto next = free_by_address_.lower_bound(address);
    if (next != free_by_address_.end() && next->first == end) {
        length += next->second;
        auto after = std::next(next);
        erase_free(next);
        next = after;
    }
    if (next != free_by_address_.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == start) {
            start = prev->first;
            length += prev->second;
            erase_free(prev);
        }
    }
    insert_free(start, length);
    return CB_OK;
}

bool vram_allocator::find(uint64_t address, vram_block& allocation) const {
    std::lock_guard lock(mutex_);
    auto it = allocated_.upper_bound(address);
    if (it == allocated_.begin()) return false;
    --it;
    if (address - it->first >= it->second.reserved) return false;
    allocation = {it->first, it->second.requested};
    return true;
}

vram_stats vram_allocator::stats() const {
    std::lock_guard lock(mutex_);
    vram_stats s;
    s.total = size_;
    s.used = used_;
    s.requested = requested_;
    s.free = size_ - used_;
    s.largest_free_block = free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
    s.free_block_count = free_by_address_.size();
    s.fragmentation = s.free == 0 ? 0.0 : 1.0 - static_cast<double>(s.largest_free_block) / static_cast<double>(s.free);
    s.peak_used = peak_used_;
    s.allocation_count = allocated_.size();
    s.allocations_total = allocations_total_;
    s.failed_allocations = failed_allocations_;
    return s;
}

std::vector<vram_block> vram_allocator::free_blocks() const {
    std::lock_guard lock(mutex_);
    std::vector<vram_block> out;
    out.reserve(free_by_address_.size());
    for (const auto& [address, size] : free_by_address_) out.push_back({address, size});
    return out;
}

std::vector<vram_block> vram_allocator::allocations() const {
    std::lock_guard lock(mutex_);
    std::vector<vram_block> out;
    out.reserve(allocated_.size());
    for (const auto& [address, a] : allocated_) out.push_back({address, a.reserved});
    return out;
}

}  // namespace cudabridge::nv

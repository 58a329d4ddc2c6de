// The caching device-memory allocator: block tables under one mutex, the backend called outside it.
#include "allocator/caching_allocator.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <exception>
#include <iterator>
#include <utility>

namespace cudabridge::host {

namespace {

uint64_t round_up(uint64_t size, uint64_t granularity) { return (size + granularity - 1) / granularity * granularity; }

// The largest cached block a request of `rounded` bytes may take (see the header's reuse rule).
uint64_t reuse_limit(uint64_t rounded) {
    if (rounded <= caching_allocator::small_limit) return rounded;
    uint64_t slack = rounded / 4;
    return rounded > UINT64_MAX - slack ? UINT64_MAX : rounded + slack;
}

// The backend is plugin glue; an exception from it becomes a status, never a crash.
template <typename Call>
cb_status call_backend(const char* what, std::string& error, Call&& call) {
    try {
        return call();
    } catch (const std::exception& e) {
        error = std::string("device memory ") + what + " threw: " + e.what();
    } catch (...) {
        error = std::string("device memory ") + what + " threw an unknown exception";
    }
    return CB_ERR_INTERNAL;
}

cb_status backend_release(const allocator_backend& backend, uint64_t base, std::string& error) {
    if (!backend.release) {
        error = "no device memory release function";
        return CB_ERR_INTERNAL;
    }
    return call_backend("release", error, [&] { return backend.release(base, error); });
}

}  // namespace

uint64_t rounded_allocation_size(uint64_t size) noexcept {
    if (size == 0) return 0;
    if (size <= caching_allocator::small_limit) return round_up(size, caching_allocator::small_granularity);
    if (size > UINT64_MAX - (caching_allocator::large_granularity - 1)) return 0;
    return round_up(size, caching_allocator::large_granularity);
}

caching_allocator::caching_allocator(allocator_backend backend, uint64_t max_cached_bytes)
    : backend_(std::move(backend)), max_cached_bytes_(max_cached_bytes) {}

caching_allocator::~caching_allocator() {
    std::vector<uint64_t> bases;
    {
        std::lock_guard lock(mutex_);
        for (const auto& entry : blocks_) bases.push_back(entry.first);
        blocks_.clear();
        cache_.clear();
    }
    std::string ignored;
    for (uint64_t base : bases) backend_release(backend_, base, ignored);
}

cb_status caching_allocator::allocate(uint64_t size, uint64_t& out_ptr, std::string& error) {
    out_ptr = 0;
    if (size == 0) return CB_OK;
    const uint64_t rounded = rounded_allocation_size(size);
    if (rounded == 0) {
        error = "device memory request of " + std::to_string(size) + " bytes is larger than any device";
        return CB_ERR_OUT_OF_MEMORY;
    }
    if (take_cached(rounded, size, out_ptr)) return CB_OK;

    cb_status status = allocate_from_backend(rounded, size, out_ptr, error);
    if (status != CB_ERR_OUT_OF_MEMORY) return status;
    // Cached blocks are device memory nobody uses: give them back and ask once more.
    empty_cache();
    return allocate_from_backend(rounded, size, out_ptr, error);
}

bool caching_allocator::take_cached(uint64_t rounded, uint64_t requested, uint64_t& out_ptr) {
    std::lock_guard lock(mutex_);
    auto it = cache_.lower_bound(rounded);  // the smallest cached block that is big enough
    if (it == cache_.end() || it->first > reuse_limit(rounded)) return false;
    const uint64_t base = it->second;
    cache_.erase(it);
    block& b = blocks_.at(base);
    b.live = true;
    b.requested = requested;
    stats_.cached_bytes -= b.reserved;
    stats_.cached_blocks -= 1;
    stats_.live_blocks += 1;
    stats_.requested_bytes += requested;
    stats_.cache_hits += 1;
    out_ptr = base;
    return true;
}

cb_status caching_allocator::allocate_from_backend(uint64_t rounded, uint64_t requested, uint64_t& out_ptr,
                                                   std::string& error) {
    if (!backend_.allocate) {
        error = "no device memory allocate function";
        return CB_ERR_INTERNAL;
    }
    uint64_t generation = 0;
    {
        std::lock_guard lock(mutex_);
        generation = generation_;
    }
    uint64_t base = 0;
    cb_status status = call_backend("allocate", error, [&] { return backend_.allocate(rounded, base, error); });
    if (status != CB_OK) {
        if (error.empty()) error = "device memory allocation of " + std::to_string(rounded) + " bytes failed";
        return status;
    }
    status = record_backend_block(base, rounded, requested, generation, error);
    if (status == CB_OK) out_ptr = base;
    return status;
}

// Enters a fresh backend block as live, unless the device was reset meanwhile or the backend
// answered an address we cannot trust (then it is not released: it may be someone else's).
cb_status caching_allocator::record_backend_block(uint64_t base, uint64_t rounded, uint64_t requested,
                                                  uint64_t generation, std::string& error) {
    std::lock_guard lock(mutex_);
    if (generation != generation_) {
        error = "the device was reset while " + std::to_string(rounded) + " bytes were being allocated";
        return CB_ERR_DEVICE_LOST;
    }
    if (base == 0 || base > UINT64_MAX - rounded) {
        error = "device memory allocation returned an unusable address " + sdk::hex_text(base);
        return CB_ERR_INTERNAL;
    }
    auto next = blocks_.lower_bound(base);
    bool overlaps = next != blocks_.end() && next->first < base + rounded;
    if (!overlaps && next != blocks_.begin()) {
        auto prev = std::prev(next);
        overlaps = prev->first + prev->second.reserved > base;
    }
    if (overlaps) {
        error = "device memory allocation returned " + sdk::hex_text(base) + ", inside a block already held";
        return CB_ERR_INTERNAL;
    }
    blocks_.emplace(base, block{rounded, requested, true});
    stats_.reserved_bytes += rounded;
    stats_.requested_bytes += requested;
    stats_.live_blocks += 1;
    stats_.backend_allocations += 1;
    return CB_OK;
}

cb_status caching_allocator::release(uint64_t ptr, std::string& error) { return give_back(ptr, true, error); }

cb_status caching_allocator::release_uncached(uint64_t ptr, std::string& error) { return give_back(ptr, false, error); }

cb_status caching_allocator::give_back(uint64_t ptr, bool may_cache, std::string& error) {
    if (ptr == 0) return CB_OK;
    {
        std::lock_guard lock(mutex_);
        auto it = blocks_.find(ptr);
        if (it == blocks_.end() || !it->second.live) {
            error = "device pointer " + sdk::hex_text(ptr) + " is not an allocation (or already freed)";
            return CB_ERR_INVALID_ARGUMENT;
        }
        block& b = it->second;
        stats_.requested_bytes -= b.requested;
        stats_.live_blocks -= 1;
        if (may_cache && b.reserved <= max_cached_bytes_ - stats_.cached_bytes) {
            b.live = false;
            b.requested = 0;
            cache_.emplace(b.reserved, ptr);
            stats_.cached_bytes += b.reserved;
            stats_.cached_blocks += 1;
            return CB_OK;
        }
        // The cache is full (or may not hold it): this block goes straight back.
        stats_.reserved_bytes -= b.reserved;
        stats_.backend_frees += 1;
        blocks_.erase(it);
    }
    return backend_release(backend_, ptr, error);
}

// Takes every cached block out of the tables (the caller gives them back outside the lock).
std::vector<uint64_t> caching_allocator::detach_cached() {
    std::lock_guard lock(mutex_);
    std::vector<uint64_t> bases;
    bases.reserve(cache_.size());
    for (const auto& [size, base] : cache_) {
        bases.push_back(base);
        blocks_.erase(base);
        stats_.reserved_bytes -= size;
    }
    stats_.backend_frees += cache_.size();
    stats_.cached_bytes = 0;
    stats_.cached_blocks = 0;
    cache_.clear();
    return bases;
}

void caching_allocator::empty_cache(std::string* error) {
    bool reported = false;
    for (uint64_t base : detach_cached()) {
        std::string message;
        if (backend_release(backend_, base, message) != CB_OK && error && !reported) {
            *error = message.empty() ? "device memory release of " + sdk::hex_text(base) + " failed" : message;
            reported = true;
        }
    }
}

void caching_allocator::forget_all() {
    std::lock_guard lock(mutex_);
    blocks_.clear();
    cache_.clear();
    stats_.requested_bytes = stats_.reserved_bytes = stats_.cached_bytes = 0;
    stats_.live_blocks = stats_.cached_blocks = 0;
    generation_ += 1;
}

// The live block whose [base, base + requested) contains address; nullptr when none.
const std::pair<const uint64_t, caching_allocator::block>* caching_allocator::live_block_at(uint64_t address) const {
    auto it = blocks_.upper_bound(address);
    if (it == blocks_.begin()) return nullptr;
    --it;
    if (!it->second.live || address - it->first >= it->second.requested) return nullptr;
    return &*it;
}

std::optional<allocation> caching_allocator::find(uint64_t address) const {
    std::lock_guard lock(mutex_);
    const auto* entry = live_block_at(address);
    if (!entry) return std::nullopt;
    return allocation{entry->first, entry->second.requested};
}

bool caching_allocator::range_valid(uint64_t address, uint64_t bytes) const {
    std::lock_guard lock(mutex_);
    auto it = blocks_.upper_bound(address);
    if (it == blocks_.begin()) return false;
    --it;
    const block& b = it->second;
    const uint64_t offset = address - it->first;
    // offset <= requested first, so the subtraction cannot wrap (and address + bytes never does);
    // a zero-byte range may sit at the very end.
    return b.live && offset <= b.requested && bytes <= b.requested - offset;
}

allocator_stats caching_allocator::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

}  // namespace cudabridge::host

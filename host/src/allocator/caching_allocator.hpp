// The caching device-memory allocator under cbMalloc/cbFree.
//
// Device memory comes from a backend (the GPU plugin's mem_alloc/mem_free). Freed blocks are kept
// in a cache and handed out again for later requests of a fitting size, so a loop of malloc/free
// does not cross the link each time. Blocks are never split or merged, so every block the cache
// holds is exactly one backend allocation and the accounting cannot drift.
//
// Rounding (stats report both the requested and the reserved bytes):
//   - small requests, up to 1 MiB: rounded up to a multiple of 512 bytes;
//   - large requests, above 1 MiB: rounded up to a multiple of 2 MiB.
// Reuse: a cached small block serves a request whose rounded size equals the block's size; a
// cached large block serves a request when it is at least the rounded request and wastes no more
// than a quarter of it (block size <= rounded + rounded / 4). Among fitting blocks the smallest
// is taken.
//
// Out of memory: when the backend answers CB_ERR_OUT_OF_MEMORY, every cached block is given back
// and the request is tried once more before the failure is reported.
//
// Threads: every member may be called from any thread. One mutex guards the block tables; the
// backend is called with it released, so a slow allocation over the link never stalls find() and
// range_valid(), which every copy calls. The backend must not call back into this allocator.
#pragma once

#include <cudabridge/abi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::host {

// Where device memory really comes from. Both must be set; both may be called from any thread.
struct allocator_backend {
    std::function<cb_status(uint64_t size, uint64_t& ptr, std::string& error)> allocate;
    std::function<cb_status(uint64_t ptr, std::string& error)> release;
};

struct allocator_stats {
    uint64_t requested_bytes = 0;  // sum of the sizes callers asked for, live allocations
    uint64_t reserved_bytes = 0;   // held from the backend: live and cached blocks, rounded
    uint64_t cached_bytes = 0;     // part of reserved_bytes that is cached (free for reuse)
    uint64_t live_blocks = 0;
    uint64_t cached_blocks = 0;
    uint64_t backend_allocations = 0;  // backend allocate calls that succeeded, since construction
    uint64_t cache_hits = 0;           // requests served from the cache, since construction
    uint64_t backend_frees = 0;        // blocks given back to the backend, since construction
};

// A live allocation: its device address and the size the caller asked for.
struct allocation {
    uint64_t base = 0;
    uint64_t size = 0;
};

// The rounding rule above, exposed for tests and diagnostics; 0 when size cannot be rounded.
uint64_t rounded_allocation_size(uint64_t size) noexcept;

class caching_allocator {
public:
    static constexpr uint64_t small_granularity = 512;
    static constexpr uint64_t small_limit = uint64_t{1} << 20;        // 1 MiB
    static constexpr uint64_t large_granularity = uint64_t{2} << 20;  // 2 MiB

    // max_cached_bytes bounds the cache: a freed block that would push it over goes straight back
    // to the backend.
    explicit caching_allocator(allocator_backend backend, uint64_t max_cached_bytes = UINT64_MAX);
    // Returns every block, live and cached, to the backend (errors are ignored: nothing to tell).
    ~caching_allocator();
    caching_allocator(const caching_allocator&) = delete;
    caching_allocator& operator=(const caching_allocator&) = delete;

    // Size 0 succeeds with out_ptr 0, as cudaMalloc(0) does.
    cb_status allocate(uint64_t size, uint64_t& out_ptr, std::string& error);
    // ptr 0 succeeds; a pointer that is not a live allocation's base is CB_ERR_INVALID_ARGUMENT.
    cb_status release(uint64_t ptr, std::string& error);
    // The same, but the block goes straight back to the backend, never into the cache: memory
    // another process has reached (a CUDA IPC handle) must not be handed out again here.
    cb_status release_uncached(uint64_t ptr, std::string& error);

    // The live allocation containing address ([base, base + size)), O(log n).
    std::optional<allocation> find(uint64_t address) const;
    // Whether [address, address + bytes) lies inside one live allocation, O(log n). A zero-byte
    // range is valid from an allocation's base up to and including its end.
    bool range_valid(uint64_t address, uint64_t bytes) const;

    // Gives every cached block back to the backend. The first backend error, if any, goes to
    // *error; the blocks are forgotten either way (the backend may no longer know them).
    void empty_cache(std::string* error = nullptr);
    // After a hard reset the device has dropped every allocation: forget them all without calling
    // the backend. A backend allocation in flight meanwhile fails with CB_ERR_DEVICE_LOST.
    void forget_all();

    allocator_stats stats() const;

private:
    cb_status give_back(uint64_t ptr, bool may_cache, std::string& error);
    struct block {
        uint64_t reserved = 0;   // rounded size, as allocated from the backend
        uint64_t requested = 0;  // the caller's size while live
        bool live = false;
    };

    bool take_cached(uint64_t rounded, uint64_t requested, uint64_t& out_ptr);
    cb_status allocate_from_backend(uint64_t rounded, uint64_t requested, uint64_t& out_ptr, std::string& error);
    cb_status record_backend_block(uint64_t base, uint64_t rounded, uint64_t requested, uint64_t generation,
                                   std::string& error);
    std::vector<uint64_t> detach_cached();
    const std::pair<const uint64_t, block>* live_block_at(uint64_t address) const;

    allocator_backend backend_;
    uint64_t max_cached_bytes_;

    mutable std::mutex mutex_;
    std::map<uint64_t, block> blocks_;         // every block we hold, by base address
    std::multimap<uint64_t, uint64_t> cache_;  // cached blocks: reserved size -> base
    allocator_stats stats_;
    uint64_t generation_ = 0;  // bumped by forget_all
};

}  // namespace cudabridge::host

// The device heap's allocator (device_heap.hpp): next fit over a list of blocks laid end to end,
// merging free neighbours as it passes them.
#include "sim/ptx/device_heap.hpp"

#include <atomic>
#include <cstring>
#include <thread>

namespace cudabridge::nv::ptx {
namespace {

constexpr uint32_t heap_magic = 0x50484243;  // "CBHP"
constexpr uint64_t free_mark = 0x45455246;   // "FREE"
constexpr uint64_t used_mark = 0x44455355;   // "USED"
constexpr uint64_t alignment = 16;

struct heap_header {
    uint32_t magic;
    uint32_t lock;
    uint64_t size;   // the heap's bytes when it was laid out
    uint64_t rover;  // where the next search starts
    uint64_t reserved[5];
};
static_assert(sizeof(heap_header) == 64);

struct block_header {
    uint64_t bytes;  // the block's payload, a multiple of `alignment`
    uint64_t mark;   // free_mark or used_mark
};
static_assert(sizeof(block_header) == alignment);

constexpr uint64_t first_block = sizeof(heap_header);

class heap {
public:
    heap(uint8_t* host, uint64_t size) : host_(host), size_(size) {}

    bool usable() const { return host_ && size_ >= first_block + 2 * sizeof(block_header); }

    // Takes the lock; lays the heap out the first time (the driver hands it over zeroed).
    void lock() {
        std::atomic_ref<uint32_t> word(header().lock);
        for (uint32_t expected = 0; !word.compare_exchange_weak(expected, 1, std::memory_order_acquire); expected = 0)
            std::this_thread::yield();
        if (header().magic != heap_magic || header().size != size_) lay_out();
    }
    void unlock() { std::atomic_ref<uint32_t>(header().lock).store(0, std::memory_order_release); }

    uint64_t allocate(uint64_t bytes) {
        const uint64_t need = (bytes + alignment - 1) / alignment * alignment;
        uint64_t at = valid(header().rover) ? header().rover : first_block;
        const uint64_t start = at;
        bool wrapped = false;
        while (!(wrapped && at >= start)) {
            block_header b = read(at);
            if (!sound(at, b)) return 0;  // a kernel overwrote the bookkeeping
            if (b.mark == free_mark) {
                b.bytes = merge_free_after(at, b.bytes);
                if (b.bytes >= need) return take(at, b.bytes, need);
            }
            at += sizeof(block_header) + b.bytes;
            if (at >= size_) {
                if (wrapped) break;
                at = first_block, wrapped = true;
            }
        }
        return 0;
    }

    bool release(uint64_t offset) {
        if (offset < first_block + sizeof(block_header) || offset % alignment != 0 || offset >= size_) return false;
        const uint64_t at = offset - sizeof(block_header);
        block_header b = read(at);
        if (!sound(at, b) || b.mark != used_mark) return false;
        b.mark = free_mark;
        write(at, b);
        return true;
    }

private:
    uint8_t* host_;
    uint64_t size_;

    heap_header& header() { return *reinterpret_cast<heap_header*>(host_); }
    block_header read(uint64_t at) const {
        block_header b{};
        std::memcpy(&b, host_ + at, sizeof b);
        return b;
    }
    void write(uint64_t at, const block_header& b) { std::memcpy(host_ + at, &b, sizeof b); }
    bool valid(uint64_t at) const {
        return at >= first_block && at % alignment == 0 && at + sizeof(block_header) <= size_;
    }
    bool sound(uint64_t at, const block_header& b) const {
        return valid(at) && b.bytes % alignment == 0 && b.bytes <= size_ - at - sizeof(block_header) &&
               (b.mark == free_mark || b.mark == used_mark);
    }

    void lay_out() {
        const uint64_t end = size_ / alignment * alignment;
        write(first_block, block_header{end - first_block - sizeof(block_header), free_mark});
        header().magic = heap_magic;
        header().size = size_;
        header().rover = first_block;
    }

    // The free block at `at` grows over the free blocks right after it.
    uint64_t merge_free_after(uint64_t at, uint64_t bytes) {
        for (uint64_t next = at + sizeof(block_header) + bytes; next < size_;) {
            const block_header n = read(next);
            if (!sound(next, n) || n.mark != free_mark) break;
            bytes += sizeof(block_header) + n.bytes;
            next += sizeof(block_header) + n.bytes;
        }
        write(at, block_header{bytes, free_mark});
        // The search must start at a block's header, never inside the merged block.
        const uint64_t rover = header().rover;
        if (rover > at && rover < at + sizeof(block_header) + bytes) header().rover = at;
        return bytes;
    }

    // Marks `need` bytes of the free block at `at` used, splitting off the rest when it can hold a
    // block of its own.
    uint64_t take(uint64_t at, uint64_t bytes, uint64_t need) {
        if (bytes - need >= 2 * sizeof(block_header)) {
            write(at + sizeof(block_header) + need, block_header{bytes - need - sizeof(block_header), free_mark});
            bytes = need;
        }
        write(at, block_header{bytes, used_mark});
        const uint64_t next = at + sizeof(block_header) + bytes;
        header().rover = next < size_ ? next : first_block;
        return at + sizeof(block_header);
    }
};

}  // namespace

heap_call heap_function(const std::string& name) {
    if (name == "malloc" || name == "_Znwm" || name == "_Znam") return heap_call::allocate;
    if (name == "free" || name == "_ZdlPv" || name == "_ZdaPv" || name == "_ZdlPvm" || name == "_ZdaPvm")
        return heap_call::release;
    return heap_call::none;
}

uint64_t heap_allocate(uint8_t* host, uint64_t base, uint64_t size, uint64_t bytes) {
    heap h(host, size);
    if (bytes == 0 || !h.usable() || bytes > size) return 0;
    h.lock();
    const uint64_t offset = h.allocate(bytes);
    h.unlock();
    return offset ? base + offset : 0;
}

bool heap_release(uint8_t* host, uint64_t base, uint64_t size, uint64_t address) {
    if (address == 0) return true;
    heap h(host, size);
    if (!h.usable() || address < base || address - base >= size) return false;
    h.lock();
    const bool ok = h.release(address - base);
    h.unlock();
    return ok;
}

}  // namespace cudabridge::nv::ptx

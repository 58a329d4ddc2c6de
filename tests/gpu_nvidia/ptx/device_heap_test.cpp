// The device heap's allocator (malloc/free in kernels), on plain memory: what malloc and free
// promise, what a full heap answers, and that a kernel scribbling over the heap's bookkeeping
// gets NULL rather than a crash.
#include "sim/ptx/device_heap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace cudabridge::nv::ptx {
namespace {

constexpr uint64_t base = 0x10000000000ull;  // where the heap lies in device addresses

struct heap_memory {
    std::vector<uint8_t> bytes;
    explicit heap_memory(size_t size) : bytes(size, 0) {}  // the driver hands it over zeroed
    uint64_t allocate(uint64_t n) { return heap_allocate(bytes.data(), base, bytes.size(), n); }
    bool release(uint64_t address) { return heap_release(bytes.data(), base, bytes.size(), address); }
};

TEST(DeviceHeap, MallocAndNewAllocateFreeAndDeleteRelease) {
    EXPECT_EQ(heap_function("malloc"), heap_call::allocate);
    EXPECT_EQ(heap_function("_Znwm"), heap_call::allocate);  // operator new
    EXPECT_EQ(heap_function("_Znam"), heap_call::allocate);  // operator new[]
    EXPECT_EQ(heap_function("free"), heap_call::release);
    EXPECT_EQ(heap_function("_ZdlPv"), heap_call::release);   // operator delete
    EXPECT_EQ(heap_function("_ZdaPvm"), heap_call::release);  // sized operator delete[]
    EXPECT_EQ(heap_function("vprintf"), heap_call::none);
}

TEST(DeviceHeap, BlocksAreAlignedInsideTheHeapAndDisjoint) {
    heap_memory h(1 << 20);
    std::vector<std::pair<uint64_t, uint64_t>> blocks;
    for (uint64_t n : {1, 7, 16, 17, 100, 4096, 3}) {
        const uint64_t p = h.allocate(n);
        ASSERT_NE(p, 0u) << n;
        EXPECT_EQ(p % 16, 0u);
        EXPECT_GE(p, base);
        EXPECT_LE(p + n, base + h.bytes.size());
        for (const auto& [q, m] : blocks) EXPECT_TRUE(p + n <= q || q + m <= p) << "overlap";
        blocks.emplace_back(p, n);
    }
}

TEST(DeviceHeap, ZeroBytesOrMoreThanIsFreeGiveNull) {
    heap_memory h(1 << 16);
    EXPECT_EQ(h.allocate(0), 0u);
    EXPECT_EQ(h.allocate(1 << 16), 0u);
    const uint64_t most = h.allocate((1 << 16) - 256);
    EXPECT_NE(most, 0u);
    EXPECT_EQ(h.allocate(512), 0u);  // full
    EXPECT_TRUE(h.release(most));
    EXPECT_NE(h.allocate(512), 0u);  // free again
}

TEST(DeviceHeap, FreedNeighboursMergeSoALargerBlockFitsAgain) {
    heap_memory h(1 << 16);
    std::vector<uint64_t> small;
    for (uint64_t p; (p = h.allocate(1000)) != 0;) small.push_back(p);
    ASSERT_GT(small.size(), 50u);
    EXPECT_EQ(h.allocate(8000), 0u);
    for (uint64_t p : small) EXPECT_TRUE(h.release(p));
    EXPECT_NE(h.allocate(60000), 0u);  // one block over all of them
}

TEST(DeviceHeap, FreeOfWhatMallocDidNotReturnIsRefused) {
    heap_memory h(1 << 16);
    const uint64_t p = h.allocate(64);
    EXPECT_TRUE(h.release(0));  // free(NULL) does nothing
    EXPECT_FALSE(h.release(p + 16));
    EXPECT_FALSE(h.release(base - 16));
    EXPECT_FALSE(h.release(base + (1 << 20)));
    EXPECT_TRUE(h.release(p));
    EXPECT_FALSE(h.release(p));  // twice
}

TEST(DeviceHeap, ScribbledBookkeepingGivesNullNotACrash) {
    heap_memory h(1 << 16);
    const uint64_t p = h.allocate(64);
    ASSERT_NE(p, 0u);
    // A kernel writes past its block over the next header and beyond.
    std::memset(h.bytes.data() + (p - base), 0xAB, 4096);
    for (int i = 0; i < 100; ++i) h.allocate(64 + i);  // must not crash or hang
    EXPECT_FALSE(h.release(p + 64));
}

TEST(DeviceHeap, ConcurrentBlocksGetDisjointBlocks) {
    heap_memory h(8 << 20);
    const int threads = 4, each = 2000;
    std::vector<std::vector<uint64_t>> got(threads);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            for (int i = 0; i < each; ++i) {
                const uint64_t p = h.allocate(100);
                got[t].push_back(p);
                if (i % 3 == 0) h.release(p), got[t].back() = 0;
            }
        });
    for (auto& w : workers) w.join();
    std::vector<uint64_t> all;
    for (const auto& g : got)
        for (uint64_t p : g)
            if (p) all.push_back(p);
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all.size(), size_t(threads) * (each - (each + 2) / 3));
    for (size_t i = 1; i < all.size(); ++i) EXPECT_GE(all[i] - all[i - 1], 100u);
}

}  // namespace
}  // namespace cudabridge::nv::ptx

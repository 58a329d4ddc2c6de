// The caching allocator under concurrent use: four threads allocating and releasing while another
// reads the statistics; at the end every count must agree with the fake device's.
#include "fake_device.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

using namespace cudabridge::host;
using namespace cb_allocator_test;

namespace {

struct held {
    uint64_t ptr, size;
};

// One worker: keeps up to 8 allocations, checks that find() sees each as its own, frees at random.
void work(caching_allocator& a, unsigned seed, int iterations, std::atomic<int>& failures) {
    const std::array<uint64_t, 6> sizes{100, 512, 4000, MiB, 3 * MiB, 9 * MiB};
    std::mt19937 rng(seed);
    std::vector<held> mine;
    std::string error;
    for (int i = 0; i < iterations; ++i) {
        bool allocate = mine.empty() || (mine.size() < 8 && rng() % 2 == 0);
        if (allocate) {
            uint64_t size = sizes[rng() % sizes.size()] + rng() % 64;
            uint64_t ptr = 0;
            if (a.allocate(size, ptr, error) != CB_OK) {
                ++failures;
                continue;
            }
            auto found = a.find(ptr + size - 1);
            if (!found || found->base != ptr || found->size != size || !a.range_valid(ptr, size)) ++failures;
            mine.push_back({ptr, size});
        } else {
            size_t k = rng() % mine.size();
            if (a.release(mine[k].ptr, error) != CB_OK) ++failures;
            mine[k] = mine.back();
            mine.pop_back();
        }
    }
    for (const held& h : mine)
        if (a.release(h.ptr, error) != CB_OK) ++failures;
}

}  // namespace

TEST(CachingAllocatorThreads, FourThreadsKeepStatsConsistent) {
    fake_device dev(8 * GiB);
    caching_allocator a(dev.backend(), /*max_cached_bytes=*/64 * MiB);
    std::atomic<int> failures{0};
    std::atomic<bool> done{false};
    std::atomic<int> inconsistent{0};

    // Every snapshot is taken under the allocator's lock, so it must be self-consistent.
    std::thread observer([&] {
        while (!done.load()) {
            auto s = a.stats();
            if (s.cached_bytes > s.reserved_bytes || s.requested_bytes > s.reserved_bytes - s.cached_bytes ||
                s.cached_bytes > 64 * MiB || (s.cached_blocks == 0) != (s.cached_bytes == 0))
                ++inconsistent;
            std::this_thread::yield();
        }
    });
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < 4; ++t) workers.emplace_back(work, std::ref(a), 1234 + t, 3000, std::ref(failures));
    for (auto& w : workers) w.join();
    done = true;
    observer.join();

    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(inconsistent.load(), 0);
    auto s = a.stats();
    EXPECT_EQ(s.live_blocks, 0u);
    EXPECT_EQ(s.requested_bytes, 0u);
    EXPECT_EQ(s.reserved_bytes, s.cached_bytes);
    EXPECT_EQ(s.reserved_bytes, dev.used());
    EXPECT_EQ(s.cached_blocks, dev.live_blocks());
    EXPECT_EQ(s.backend_allocations, dev.allocate_calls());
    EXPECT_EQ(s.backend_frees, dev.release_calls());
    EXPECT_EQ(s.backend_allocations - s.backend_frees, s.cached_blocks);
    EXPECT_GT(s.cache_hits, 0u);
    EXPECT_EQ(dev.bad_releases(), 0u);

    a.empty_cache();
    EXPECT_EQ(dev.used(), 0u);
}

// The caching allocator: rounding, reuse from the cache, out-of-memory retry, refusals, address
// lookups, reset and teardown, each checked against a fake device that counts its calls.
#include "fake_device.hpp"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <vector>

using namespace cudabridge::host;
using namespace cb_allocator_test;

namespace {

uint64_t must_allocate(caching_allocator& a, uint64_t size) {
    uint64_t ptr = 0;
    std::string error;
    EXPECT_EQ(a.allocate(size, ptr, error), CB_OK) << error;
    EXPECT_NE(ptr, 0u);
    return ptr;
}

void must_release(caching_allocator& a, uint64_t ptr) {
    std::string error;
    EXPECT_EQ(a.release(ptr, error), CB_OK) << error;
}

}  // namespace

TEST(CachingAllocator, RoundingRule) {
    EXPECT_EQ(rounded_allocation_size(0), 0u);
    EXPECT_EQ(rounded_allocation_size(1), 512u);
    EXPECT_EQ(rounded_allocation_size(512), 512u);
    EXPECT_EQ(rounded_allocation_size(513), 1024u);
    EXPECT_EQ(rounded_allocation_size(MiB), MiB);
    EXPECT_EQ(rounded_allocation_size(MiB + 1), 2 * MiB);
    EXPECT_EQ(rounded_allocation_size(3 * MiB), 4 * MiB);
    EXPECT_EQ(rounded_allocation_size(4 * MiB), 4 * MiB);
    EXPECT_EQ(rounded_allocation_size(UINT64_MAX), 0u);

    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    uint64_t ptr = 7;
    std::string error;
    EXPECT_EQ(a.allocate(UINT64_MAX, ptr, error), CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(ptr, 0u);
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(dev.allocate_calls(), 0u);
}

TEST(CachingAllocator, ZeroSizeIsNullWithoutBackend) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    uint64_t ptr = 7;
    std::string error;
    EXPECT_EQ(a.allocate(0, ptr, error), CB_OK);
    EXPECT_EQ(ptr, 0u);
    EXPECT_EQ(a.release(0, error), CB_OK);
    EXPECT_EQ(dev.allocate_calls(), 0u);
    EXPECT_EQ(a.stats().live_blocks, 0u);
}

TEST(CachingAllocator, ReusesCachedBlockWithoutBackendCall) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    uint64_t first = must_allocate(a, 1000);
    must_release(a, first);
    auto s = a.stats();
    EXPECT_EQ(s.cached_blocks, 1u);
    EXPECT_EQ(s.cached_bytes, 1024u);
    EXPECT_EQ(s.reserved_bytes, 1024u);
    EXPECT_EQ(s.requested_bytes, 0u);

    uint64_t again = must_allocate(a, 700);  // rounds to 1024 too
    EXPECT_EQ(again, first);
    EXPECT_EQ(dev.allocate_calls(), 1u);
    s = a.stats();
    EXPECT_EQ(s.cache_hits, 1u);
    EXPECT_EQ(s.backend_allocations, 1u);
    EXPECT_EQ(s.requested_bytes, 700u);
    EXPECT_EQ(s.reserved_bytes, 1024u);
    EXPECT_EQ(s.cached_bytes, 0u);
    EXPECT_EQ(s.live_blocks, 1u);
    ASSERT_TRUE(a.find(first));
    EXPECT_EQ(a.find(first)->size, 700u) << "a reused block reports the new request's size";
}

TEST(CachingAllocator, SmallBlocksNeedTheSameRoundedSize) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    uint64_t block_1k = must_allocate(a, 1024);
    must_release(a, block_1k);
    uint64_t smaller = must_allocate(a, 512);  // fits, but is a different size class
    EXPECT_NE(smaller, block_1k);
    uint64_t larger = must_allocate(a, 1025);
    EXPECT_NE(larger, block_1k);
    EXPECT_EQ(dev.allocate_calls(), 3u);
    EXPECT_EQ(a.stats().cached_blocks, 1u);
}

TEST(CachingAllocator, LargeBlocksReusedWithinAQuarter) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    uint64_t b10 = must_allocate(a, 10 * MiB);
    uint64_t b16 = must_allocate(a, 16 * MiB);
    must_release(a, b16);
    must_release(a, b10);
    ASSERT_EQ(dev.allocate_calls(), 2u);

    // 8 MiB into the 10 MiB block wastes exactly a quarter of the request: allowed; the smallest
    // fitting block is chosen over the 16 MiB one.
    uint64_t p = must_allocate(a, 8 * MiB);
    EXPECT_EQ(p, b10);
    auto s = a.stats();
    EXPECT_EQ(s.requested_bytes, 8 * MiB);
    EXPECT_EQ(s.reserved_bytes, 26 * MiB);
    EXPECT_EQ(s.cached_bytes, 16 * MiB);
    must_release(a, p);

    // 12 MiB may take up to 15 MiB: neither 10 (too small) nor 16 (too wasteful) fits.
    uint64_t q = must_allocate(a, 12 * MiB);
    EXPECT_NE(q, b10);
    EXPECT_NE(q, b16);
    EXPECT_EQ(dev.allocate_calls(), 3u);

    // 13 MiB rounds to 14 MiB, which may take up to 17.5 MiB: the 16 MiB block.
    uint64_t r = must_allocate(a, 13 * MiB);
    EXPECT_EQ(r, b16);
    EXPECT_EQ(dev.allocate_calls(), 3u);
    ASSERT_TRUE(a.find(r));
    EXPECT_EQ(a.find(r)->size, 13 * MiB);
    EXPECT_FALSE(a.find(r + 13 * MiB)) << "the block's slack is not part of the allocation";
}

TEST(CachingAllocator, MallocFreeLoopNeverLeaks) {
    fake_device dev(8 * GiB);
    caching_allocator a(dev.backend());
    for (int i = 0; i < 10000; ++i) {
        uint64_t ptr = 0;
        std::string error;
        ASSERT_EQ(a.allocate(64 * MiB, ptr, error), CB_OK) << "iteration " << i << ": " << error;
        auto s = a.stats();
        ASSERT_EQ(s.requested_bytes, 64 * MiB);
        ASSERT_EQ(s.reserved_bytes, 64 * MiB);
        ASSERT_EQ(s.live_blocks, 1u);
        ASSERT_EQ(s.cached_blocks, 0u);
        ASSERT_EQ(a.release(ptr, error), CB_OK) << "iteration " << i << ": " << error;
        s = a.stats();
        ASSERT_EQ(s.requested_bytes, 0u);
        ASSERT_EQ(s.cached_bytes, 64 * MiB);
        ASSERT_EQ(s.cached_blocks, 1u);
        ASSERT_EQ(s.cache_hits, static_cast<uint64_t>(i));
    }
    EXPECT_EQ(dev.allocate_calls(), 1u);
    EXPECT_EQ(dev.used(), 64 * MiB);
    EXPECT_EQ(a.stats().backend_allocations, 1u);
}

TEST(CachingAllocator, UncachedLoopReturnsEverythingEachTime) {
    fake_device dev(8 * GiB);
    caching_allocator a(dev.backend(), /*max_cached_bytes=*/0);
    const std::array<uint64_t, 4> sizes{64 * MiB, MiB + 1, 4096, 100 * MiB};
    for (int i = 0; i < 2500; ++i) {
        std::array<uint64_t, 4> ptrs{};
        for (size_t k = 0; k < sizes.size(); ++k) ptrs[k] = must_allocate(a, sizes[k]);
        for (uint64_t p : ptrs) must_release(a, p);
        ASSERT_EQ(dev.used(), 0u) << "iteration " << i;
    }
    auto s = a.stats();
    EXPECT_EQ(s.reserved_bytes, 0u);
    EXPECT_EQ(s.backend_allocations, 10000u);
    EXPECT_EQ(s.backend_frees, 10000u);
    EXPECT_EQ(dev.peak_used(), 64 * MiB + 2 * MiB + 4096 + 100 * MiB);
    EXPECT_EQ(dev.bad_releases(), 0u);
}

TEST(CachingAllocator, CacheLimitSendsBlocksStraightBack) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend(), /*max_cached_bytes=*/3 * MiB);
    uint64_t big = must_allocate(a, 2 * MiB);
    uint64_t other = must_allocate(a, 2 * MiB);
    must_release(a, big);    // 2 MiB cached: fits under 3 MiB
    must_release(a, other);  // would make 4 MiB: goes back
    auto s = a.stats();
    EXPECT_EQ(s.cached_bytes, 2 * MiB);
    EXPECT_EQ(s.reserved_bytes, 2 * MiB);
    EXPECT_EQ(s.backend_frees, 1u);
    EXPECT_EQ(dev.used(), 2 * MiB);
}

TEST(CachingAllocator, OutOfMemoryEmptiesCacheAndRetries) {
    fake_device dev(256 * MiB);
    caching_allocator a(dev.backend());
    uint64_t p128 = must_allocate(a, 128 * MiB);
    uint64_t p64 = must_allocate(a, 64 * MiB);
    must_release(a, p128);
    must_release(a, p64);
    ASSERT_EQ(dev.used(), 192 * MiB);

    uint64_t p200 = must_allocate(a, 200 * MiB);  // misses the cache; the device has 64 MiB free
    EXPECT_EQ(dev.allocate_calls(), 4u) << "two first allocations, the refused one, the retry";
    EXPECT_EQ(dev.release_calls(), 2u);
    auto s = a.stats();
    EXPECT_EQ(s.cached_blocks, 0u);
    EXPECT_EQ(s.reserved_bytes, 200 * MiB);
    EXPECT_EQ(s.backend_frees, 2u);
    EXPECT_EQ(dev.used(), 200 * MiB);
    ASSERT_TRUE(a.find(p200));

    // A request the device cannot hold even with an empty cache fails after one retry.
    uint64_t ptr = 1;
    std::string error;
    EXPECT_EQ(a.allocate(100 * MiB, ptr, error), CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(ptr, 0u);
    EXPECT_EQ(error, "fake device out of memory");
    EXPECT_EQ(dev.allocate_calls(), 6u);
    EXPECT_EQ(a.stats().reserved_bytes, 200 * MiB);
}

TEST(CachingAllocator, OtherBackendErrorsPassThroughWithoutRetry) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    dev.fail_next_allocation(CB_ERR_DEVICE_LOST);
    uint64_t ptr = 0;
    std::string error;
    EXPECT_EQ(a.allocate(4096, ptr, error), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(error, "injected failure");
    EXPECT_EQ(dev.allocate_calls(), 1u);
    EXPECT_EQ(a.stats().live_blocks, 0u);
    must_allocate(a, 4096);  // the next one works
}

TEST(CachingAllocator, UntrustworthyBackendAnswersAreRefused) {
    std::vector<uint64_t> answers{0x1000'0000, 0x1000'0100, 0};
    size_t next = 0;
    int releases = 0;
    allocator_backend backend{[&](uint64_t, uint64_t& ptr, std::string&) {
                                  ptr = answers.at(next++);
                                  return CB_OK;
                              },
                              [&](uint64_t, std::string&) {
                                  ++releases;
                                  return CB_OK;
                              }};
    {
        caching_allocator a(backend);
        must_allocate(a, 4096);
        uint64_t ptr = 0;
        std::string error;
        EXPECT_EQ(a.allocate(4096, ptr, error), CB_ERR_INTERNAL) << "overlaps the first block";
        EXPECT_NE(error.find("inside a block"), std::string::npos) << error;
        EXPECT_EQ(a.allocate(4096, ptr, error), CB_ERR_INTERNAL) << "address 0";
        EXPECT_EQ(a.stats().live_blocks, 1u);
    }
    EXPECT_EQ(releases, 1) << "only the one trusted block is given back";

    allocator_backend throwing{[](uint64_t, uint64_t&, std::string&) -> cb_status { throw std::runtime_error("boom"); },
                               [](uint64_t, std::string&) { return CB_OK; }};
    caching_allocator b(throwing);
    uint64_t ptr = 0;
    std::string error;
    EXPECT_EQ(b.allocate(64, ptr, error), CB_ERR_INTERNAL);
    EXPECT_NE(error.find("boom"), std::string::npos) << error;

    caching_allocator empty_backend(allocator_backend{});
    EXPECT_EQ(empty_backend.allocate(64, ptr, error), CB_ERR_INTERNAL);
}

TEST(CachingAllocator, DoubleFreeAndUnknownPointersRefused) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    uint64_t p = must_allocate(a, 4096);
    uint64_t q = must_allocate(a, 4096);
    must_release(a, p);
    const auto before = a.stats();

    std::string error;
    EXPECT_EQ(a.release(p, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("not an allocation (or already freed)"), std::string::npos) << error;
    error.clear();
    EXPECT_EQ(a.release(q + 16, error), CB_ERR_INVALID_ARGUMENT) << "inside, not the base";
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(a.release(0xdead'beef, error), CB_ERR_INVALID_ARGUMENT);

    const auto after = a.stats();
    EXPECT_EQ(after.live_blocks, before.live_blocks);
    EXPECT_EQ(after.cached_blocks, before.cached_blocks);
    EXPECT_EQ(after.requested_bytes, before.requested_bytes);
    EXPECT_EQ(dev.release_calls(), 0u);
    must_release(a, q);
}

TEST(CachingAllocator, FindAndRangeValidEdges) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    uint64_t p = must_allocate(a, 1000);  // reserves 1024
    uint64_t q = must_allocate(a, 4096);
    ASSERT_EQ(q, p + 1024) << "the fake device hands out contiguous blocks";

    ASSERT_TRUE(a.find(p));
    EXPECT_EQ(a.find(p)->base, p);
    EXPECT_EQ(a.find(p)->size, 1000u);
    ASSERT_TRUE(a.find(p + 999));
    EXPECT_EQ(a.find(p + 999)->base, p);
    EXPECT_FALSE(a.find(p + 1000)) << "one past the end";
    EXPECT_FALSE(a.find(p + 1023)) << "rounding slack";
    EXPECT_FALSE(a.find(p - 1));
    EXPECT_FALSE(a.find(0));
    ASSERT_TRUE(a.find(q));
    EXPECT_EQ(a.find(q)->base, q);

    EXPECT_TRUE(a.range_valid(p, 1000));
    EXPECT_FALSE(a.range_valid(p, 1001));
    EXPECT_TRUE(a.range_valid(p + 999, 1));
    EXPECT_FALSE(a.range_valid(p + 999, 2));
    EXPECT_FALSE(a.range_valid(p + 1000, 1));
    EXPECT_TRUE(a.range_valid(p + 500, 0));
    EXPECT_TRUE(a.range_valid(p + 1000, 0)) << "an empty range at the end";
    EXPECT_FALSE(a.range_valid(p + 1001, 0));
    EXPECT_FALSE(a.range_valid(p - 1, 0));
    EXPECT_FALSE(a.range_valid(p - 1, 2));
    EXPECT_FALSE(a.range_valid(p + 500, 2000)) << "spans into the next allocation";
    EXPECT_TRUE(a.range_valid(q, 4096));
    EXPECT_FALSE(a.range_valid(q + 1, UINT64_MAX)) << "no wrap-around";
    EXPECT_FALSE(a.range_valid(UINT64_MAX, 1));

    must_release(a, p);
    EXPECT_FALSE(a.find(p)) << "a cached block is not live";
    EXPECT_FALSE(a.range_valid(p, 1));
    EXPECT_FALSE(a.range_valid(p, 0));
    EXPECT_TRUE(a.range_valid(q, 1));
}

TEST(CachingAllocator, ForgetAllClearsWithoutBackend) {
    fake_device dev(GiB);
    auto a = std::make_unique<caching_allocator>(dev.backend());
    uint64_t p = must_allocate(*a, 4096);
    uint64_t q = must_allocate(*a, 8 * MiB);
    must_release(*a, q);
    a->forget_all();

    auto s = a->stats();
    EXPECT_EQ(s.requested_bytes, 0u);
    EXPECT_EQ(s.reserved_bytes, 0u);
    EXPECT_EQ(s.cached_bytes, 0u);
    EXPECT_EQ(s.live_blocks, 0u);
    EXPECT_EQ(s.cached_blocks, 0u);
    EXPECT_EQ(s.backend_allocations, 2u) << "history counters stay";
    EXPECT_EQ(dev.release_calls(), 0u);
    EXPECT_FALSE(a->find(p));
    std::string error;
    EXPECT_EQ(a->release(p, error), CB_ERR_INVALID_ARGUMENT);

    uint64_t r = must_allocate(*a, 8 * MiB);
    EXPECT_NE(r, q) << "the forgotten cache is not reused";
    EXPECT_EQ(dev.allocate_calls(), 3u);
    a.reset();
    EXPECT_EQ(dev.release_calls(), 1u) << "only the block allocated after the reset";
}

TEST(CachingAllocator, ResetDuringBackendAllocationIsDeviceLost) {
    fake_device dev(GiB);
    caching_allocator* self = nullptr;
    allocator_backend inner = dev.backend();
    // A hard reset lands while the backend is allocating (the allocator's lock is not held then).
    allocator_backend backend{[&](uint64_t size, uint64_t& ptr, std::string& error) {
                                  self->forget_all();
                                  return inner.allocate(size, ptr, error);
                              },
                              inner.release};
    caching_allocator a(backend);
    self = &a;
    uint64_t ptr = 0;
    std::string error;
    EXPECT_EQ(a.allocate(4096, ptr, error), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(ptr, 0u);
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(a.stats().live_blocks, 0u);
}

TEST(CachingAllocator, DestructorReturnsEveryBlock) {
    fake_device dev(GiB);
    {
        caching_allocator a(dev.backend());
        must_allocate(a, 100);
        uint64_t cached = must_allocate(a, 3 * MiB);
        must_allocate(a, 64 * MiB);
        must_release(a, cached);
        EXPECT_EQ(dev.live_blocks(), 3u);
    }
    EXPECT_EQ(dev.used(), 0u);
    EXPECT_EQ(dev.live_blocks(), 0u);
    EXPECT_EQ(dev.release_calls(), 3u);
    EXPECT_EQ(dev.bad_releases(), 0u);
}

TEST(CachingAllocator, EmptyCacheGivesBackOnlyCachedBlocks) {
    fake_device dev(GiB);
    caching_allocator a(dev.backend());
    uint64_t live = must_allocate(a, 4096);
    must_release(a, must_allocate(a, 8192));
    must_release(a, must_allocate(a, 16 * MiB));
    std::string error;
    a.empty_cache(&error);
    EXPECT_TRUE(error.empty()) << error;
    auto s = a.stats();
    EXPECT_EQ(s.cached_blocks, 0u);
    EXPECT_EQ(s.reserved_bytes, 4096u);
    EXPECT_EQ(s.backend_frees, 2u);
    EXPECT_EQ(dev.used(), 4096u);
    EXPECT_TRUE(a.find(live));
}

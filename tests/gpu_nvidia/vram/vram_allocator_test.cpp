#include "userspace/vram/vram_allocator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using cudabridge::nv::vram_allocator;
using cudabridge::nv::vram_block;

namespace {

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;
constexpr uint64_t GiB = 1024 * MiB;
constexpr uint64_t fake_base = 0x7f00'0000'0000ull;  // fake device addresses

uint64_t must_allocate(vram_allocator& a, uint64_t size, uint64_t align = 0) {
    uint64_t addr = 0;
    EXPECT_EQ(a.allocate(size, align, addr), CB_OK) << "size " << size;
    return addr;
}

}  // namespace

TEST(VramAllocator, ConstructorRefusesBadRanges) {
    EXPECT_THROW(vram_allocator(0, 0), std::invalid_argument);
    EXPECT_THROW(vram_allocator(0, 1000), std::invalid_argument);                // not a granule multiple
    EXPECT_THROW(vram_allocator(100, 1024), std::invalid_argument);              // unaligned base
    EXPECT_THROW(vram_allocator(0, 1024, 100), std::invalid_argument);           // granule not 2^n
    EXPECT_THROW(vram_allocator(UINT64_MAX - 255, 512), std::invalid_argument);  // wraps
}

TEST(VramAllocator, SizeZeroAndBadAlignmentAreInvalid) {
    vram_allocator a(fake_base, 1 * MiB);
    uint64_t out = 12345;
    EXPECT_EQ(a.allocate(0, 0, out), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(a.allocate(64, 3, out), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(a.allocate(64, 768, out), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(out, 12345u);
    EXPECT_EQ(a.stats().allocation_count, 0u);
}

TEST(VramAllocator, DefaultAlignmentIs256AndSizesRoundToGranule) {
    vram_allocator a(fake_base, 1 * MiB);
    const uint64_t p = must_allocate(a, 1);
    const uint64_t q = must_allocate(a, 1);
    EXPECT_EQ(p % 256, 0u);
    EXPECT_EQ(q % 256, 0u);
    EXPECT_EQ(q - p, 256u);
    EXPECT_EQ(a.stats().used, 512u);
    EXPECT_EQ(a.stats().requested, 2u);
}

TEST(VramAllocator, AlignmentHonoured) {
    vram_allocator a(fake_base, 64 * MiB);
    must_allocate(a, 300);  // knock the next free address off any large alignment
    for (uint64_t align = 1; align <= 16 * MiB; align <<= 1) {
        const uint64_t p = must_allocate(a, 1000, align);
        EXPECT_EQ(p % std::max<uint64_t>(align, 256), 0u) << "alignment " << align;
    }
    // The padding skipped for alignment stays free and is used again.
    const auto s = a.stats();
    EXPECT_EQ(s.free, s.total - s.used);
}

TEST(VramAllocator, BestFitChoosesSmallestAdequateBlock) {
    vram_allocator a(fake_base, 64 * MiB);
    // Carve holes of 4 MiB, 1 MiB and 2 MiB separated by live blocks.
    const uint64_t h4 = must_allocate(a, 4 * MiB);
    must_allocate(a, 256);
    const uint64_t h1 = must_allocate(a, 1 * MiB);
    must_allocate(a, 256);
    const uint64_t h2 = must_allocate(a, 2 * MiB);
    must_allocate(a, 256);
    ASSERT_EQ(a.free(h4), CB_OK);
    ASSERT_EQ(a.free(h1), CB_OK);
    ASSERT_EQ(a.free(h2), CB_OK);
    // 1.5 MiB fits the 2 MiB hole best (not the 4 MiB one, nor the big tail).
    EXPECT_EQ(must_allocate(a, 1536 * KiB), h2);
    // 1 MiB exactly fills the 1 MiB hole.
    EXPECT_EQ(must_allocate(a, 1 * MiB), h1);
    // 3 MiB goes to the 4 MiB hole.
    EXPECT_EQ(must_allocate(a, 3 * MiB), h4);
}

TEST(VramAllocator, CoalescingRestoresOneBlockAfterFreeingInRandomOrder) {
    vram_allocator a(fake_base, 256 * MiB);
    std::mt19937_64 rng(42);
    std::vector<uint64_t> ptrs;
    for (int i = 0; i < 2000; ++i) {
        uint64_t p = 0;
        if (a.allocate(1 + rng() % (64 * KiB), 256ull << (rng() % 4), p) == CB_OK) ptrs.push_back(p);
    }
    ASSERT_GT(ptrs.size(), 1000u);
    std::shuffle(ptrs.begin(), ptrs.end(), rng);
    for (uint64_t p : ptrs) ASSERT_EQ(a.free(p), CB_OK);
    const auto blocks = a.free_blocks();
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_EQ(blocks[0], (vram_block{fake_base, 256 * MiB}));
    const auto s = a.stats();
    EXPECT_EQ(s.used, 0u);
    EXPECT_EQ(s.free_block_count, 1u);
    EXPECT_DOUBLE_EQ(s.fragmentation, 0.0);
}

TEST(VramAllocator, FillingA24GiBRangeEndsInOutOfMemory) {
    vram_allocator a(fake_base, 24 * GiB);
    uint64_t p = 0;
    int n = 0;
    cb_status st = CB_OK;
    while ((st = a.allocate(1 * GiB - 4096, 0, p)) == CB_OK) ++n;
    EXPECT_EQ(st, CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(n, 24);
    // Fill the small remainders too, then even one byte is refused.
    while ((st = a.allocate(256, 0, p)) == CB_OK) ++n;
    EXPECT_EQ(st, CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(a.allocate(1, 0, p), CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(a.allocate(UINT64_MAX, 0, p), CB_ERR_OUT_OF_MEMORY);
    const auto s = a.stats();
    EXPECT_EQ(s.used, s.total);
    EXPECT_EQ(s.free, 0u);
    EXPECT_EQ(s.largest_free_block, 0u);
    EXPECT_EQ(s.free_block_count, 0u);
    EXPECT_GE(s.failed_allocations, 4u);
    EXPECT_EQ(s.peak_used, 24 * GiB);
}

TEST(VramAllocator, TooLargeIsOutOfMemoryNotInvalid) {
    vram_allocator a(fake_base, 1 * MiB);
    uint64_t p = 0;
    EXPECT_EQ(a.allocate(1 * MiB + 1, 0, p), CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(a.allocate(UINT64_MAX - 10, 0, p), CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(a.allocate(1 * MiB, 0, p), CB_OK);
    EXPECT_EQ(p, fake_base);
}

TEST(VramAllocator, DoubleFreeAndUnknownAddressRefusedWithoutCorruption) {
    vram_allocator a(fake_base, 1 * MiB);
    const uint64_t p = must_allocate(a, 4096);
    const uint64_t q = must_allocate(a, 4096);
    const auto before = a.free_blocks();
    EXPECT_EQ(a.free(q + 256), CB_ERR_INVALID_ARGUMENT);  // interior pointer
    EXPECT_EQ(a.free(12345), CB_ERR_INVALID_ARGUMENT);    // outside the range
    EXPECT_EQ(a.free_blocks(), before);
    EXPECT_EQ(a.free(p), CB_OK);
    const auto after_one = a.free_blocks();
    EXPECT_EQ(a.free(p), CB_ERR_INVALID_ARGUMENT);  // double free
    EXPECT_EQ(a.free_blocks(), after_one);
    EXPECT_EQ(a.stats().allocation_count, 1u);
    EXPECT_EQ(a.free(q), CB_OK);
    EXPECT_EQ(a.free_blocks().size(), 1u);
}

TEST(VramAllocator, FindLocatesTheContainingAllocation) {
    vram_allocator a(fake_base, 1 * MiB);
    const uint64_t p = must_allocate(a, 1000);
    vram_block b;
    ASSERT_TRUE(a.find(p + 999, b));
    EXPECT_EQ(b.address, p);
    EXPECT_EQ(b.size, 1000u);
    EXPECT_FALSE(a.find(p + 1024, b));
    EXPECT_FALSE(a.find(fake_base - 1, b));
}

TEST(VramAllocator, FragmentationStatistic) {
    vram_allocator a(fake_base, 16 * MiB);
    std::vector<uint64_t> ptrs;
    for (int i = 0; i < 16; ++i) ptrs.push_back(must_allocate(a, 1 * MiB));
    EXPECT_DOUBLE_EQ(a.stats().fragmentation, 0.0);  // nothing free
    // Free every other block: eight separate 1 MiB holes.
    for (int i = 0; i < 16; i += 2) ASSERT_EQ(a.free(ptrs[i]), CB_OK);
    auto s = a.stats();
    EXPECT_EQ(s.free, 8 * MiB);
    EXPECT_EQ(s.free_block_count, 8u);
    EXPECT_EQ(s.largest_free_block, 1 * MiB);
    EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - 1.0 / 8.0);
    uint64_t p = 0;
    EXPECT_EQ(a.allocate(2 * MiB, 0, p), CB_ERR_OUT_OF_MEMORY);  // 8 MiB free, none of it usable
    // Freeing block 1 joins holes 0..2 into one 3 MiB block.
    ASSERT_EQ(a.free(ptrs[1]), CB_OK);
    s = a.stats();
    EXPECT_EQ(s.free_block_count, 7u);
    EXPECT_EQ(s.largest_free_block, 3 * MiB);
    EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - 3.0 / 9.0);
    EXPECT_EQ(s.peak_used, 16 * MiB);
    EXPECT_EQ(s.allocation_count, 7u);
    EXPECT_EQ(s.allocations_total, 16u);
}

// A deliberately simple reference: live allocations as a sorted vector of intervals; free
// space is whatever lies between them; best fit = smallest gap that fits once aligned, lowest
// address on ties.
namespace {
struct reference_model {
    uint64_t base, size;
    std::vector<vram_block> live;  // sorted by address; size = reserved (rounded) length

    std::vector<vram_block> gaps() const {
        std::vector<vram_block> out;
        uint64_t cursor = base;
        for (const auto& b : live) {
            if (b.address > cursor) out.push_back({cursor, b.address - cursor});
            cursor = b.address + b.size;
        }
        if (cursor < base + size) out.push_back({cursor, base + size - cursor});
        return out;
    }
    std::optional<uint64_t> allocate(uint64_t request, uint64_t align) {
        const uint64_t length = (request + 255) / 256 * 256;
        align = std::max<uint64_t>(align, 256);
        std::optional<vram_block> best;
        uint64_t best_start = 0;
        for (const auto& g : gaps()) {
            const uint64_t start = (g.address + align - 1) / align * align;
            if (start - g.address > g.size || g.size - (start - g.address) < length) continue;
            if (!best || g.size < best->size) {
                best = g;
                best_start = start;
            }
        }
        if (!best) return std::nullopt;
        live.insert(std::upper_bound(live.begin(), live.end(), best_start,
                                     [](uint64_t a, const vram_block& b) { return a < b.address; }),
                    vram_block{best_start, length});
        return best_start;
    }
    bool free(uint64_t addr) {
        auto it = std::find_if(live.begin(), live.end(), [&](const vram_block& b) { return b.address == addr; });
        if (it == live.end()) return false;
        live.erase(it);
        return true;
    }
};
}  // namespace

TEST(VramAllocator, RandomizedStressMatchesReferenceModel) {
    constexpr uint64_t range = 64 * MiB;
    vram_allocator a(fake_base, range);
    reference_model ref{fake_base, range, {}};
    std::mt19937_64 rng(20261129);
    std::vector<uint64_t> ptrs;
    int ooms = 0;
    for (int op = 0; op < 8000; ++op) {
        const bool do_alloc = ptrs.empty() || rng() % 100 < 55;
        if (do_alloc) {
            // Mostly small, sometimes large sizes; alignments 256 B .. 1 MiB.
            const uint64_t size = rng() % 10 == 0 ? 1 + rng() % (8 * MiB) : 1 + rng() % (256 * KiB);
            const uint64_t align = 1ull << (rng() % 21);
            uint64_t got = 0;
            const cb_status st = a.allocate(size, align, got);
            const auto want = ref.allocate(size, align);
            if (want) {
                ASSERT_EQ(st, CB_OK) << "op " << op;
                ASSERT_EQ(got, *want) << "op " << op << " size " << size << " align " << align;
                ptrs.push_back(got);
            } else {
                ASSERT_EQ(st, CB_ERR_OUT_OF_MEMORY) << "op " << op;
                ++ooms;
            }
        } else if (rng() % 20 == 0) {
            // A bogus free: an interior address or one already freed.
            const uint64_t bogus = ptrs[rng() % ptrs.size()] + 256;
            const bool ref_ok = ref.free(bogus);
            ASSERT_EQ(a.free(bogus), ref_ok ? CB_OK : CB_ERR_INVALID_ARGUMENT);
            if (ref_ok) std::erase(ptrs, bogus);
        } else {
            const size_t i = rng() % ptrs.size();
            ASSERT_TRUE(ref.free(ptrs[i]));
            ASSERT_EQ(a.free(ptrs[i]), CB_OK);
            ASSERT_EQ(a.free(ptrs[i]), CB_ERR_INVALID_ARGUMENT);
            ptrs[i] = ptrs.back();
            ptrs.pop_back();
        }
        if (op % 97 == 0 || op == 7999) {
            // The allocator's free list is exactly the reference's gaps: fully coalesced.
            ASSERT_EQ(a.free_blocks(), ref.gaps()) << "op " << op;
            ASSERT_EQ(a.allocations(), ref.live) << "op " << op;
            const auto s = a.stats();
            uint64_t used = 0;
            for (const auto& b : ref.live) used += b.size;
            ASSERT_EQ(s.used, used);
            ASSERT_EQ(s.free, range - used);
            ASSERT_EQ(s.allocation_count, ref.live.size());
        }
    }
    EXPECT_GT(ooms, 0) << "the stress should reach out-of-memory at least once";
}

TEST(VramAllocator, ConcurrentUseIsSafe) {
    vram_allocator a(fake_base, 256 * MiB);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&a, t] {
            std::mt19937_64 rng(static_cast<uint64_t>(t));
            std::vector<uint64_t> mine;
            for (int i = 0; i < 5000; ++i) {
                uint64_t p = 0;
                if (mine.empty() || rng() % 2) {
                    if (a.allocate(1 + rng() % (32 * KiB), 0, p) == CB_OK) mine.push_back(p);
                } else {
                    EXPECT_EQ(a.free(mine.back()), CB_OK);
                    mine.pop_back();
                }
            }
            for (uint64_t p : mine) EXPECT_EQ(a.free(p), CB_OK);
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(a.free_blocks(), (std::vector<vram_block>{{fake_base, 256 * MiB}}));
    EXPECT_EQ(a.stats().used, 0u);
}

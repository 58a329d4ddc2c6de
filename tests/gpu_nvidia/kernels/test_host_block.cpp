// The CPU engine's temporary memory (host_block.hpp): large blocks come back for reuse, within the
// pool's limit; small ones and oversize ones are plain allocations; every block is 64-byte aligned.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/kernels/host_block.hpp"
#include "common/kernels/tensor.hpp"

namespace k = cudabridge::nv::kernels;

namespace {

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

TEST(HostBlock, AFreedLargeBlockServesTheNextRequestOfItsSize) {
    const std::size_t bytes = std::size_t{8} << 20;
    std::size_t capacity = 0;
    {
        k::host_block b(bytes);
        ASSERT_TRUE(aligned(b.data()));
        ASSERT_GE(b.capacity(), bytes);
        capacity = b.capacity();
        std::memset(b.data(), 1, bytes);  // the pages exist now
    }
    const std::size_t kept = k::host_block_pool_bytes();
    EXPECT_GE(kept, capacity) << "kept for reuse, not unmapped";
    k::host_block again(bytes);
    EXPECT_LT(k::host_block_pool_bytes(), kept) << "served from the pool, not faulted in afresh";
    EXPECT_GE(again.capacity(), bytes);
}

TEST(HostBlock, ABlockMuchLargerThanTheRequestIsLeftForLargerOnes) {
    void* big = nullptr;
    {
        k::host_block b(64 << 20);
        big = b.data();
    }
    k::host_block small(4 << 20);
    EXPECT_NE(small.data(), big) << "a 4 MiB temporary must not hold a 64 MiB block";
}

TEST(HostBlock, ThePoolKeepsNoMoreThanItsLimit) {
    {
        std::vector<k::host_block> many;
        for (int i = 0; i < 16; ++i) many.emplace_back(std::size_t{40} << 20);  // 640 MiB
    }
    EXPECT_LE(k::host_block_pool_bytes(), k::host_block::pool_limit);
}

TEST(HostBlock, SmallBlocksAreAlignedAndMovedWithoutCopies) {
    k::host_block a(10);
    ASSERT_TRUE(aligned(a.data()));
    void* p = a.data();
    k::host_block b(std::move(a));
    EXPECT_EQ(b.data(), p);
    EXPECT_EQ(a.data(), nullptr);
    k::host_block c(100);
    c = std::move(b);
    EXPECT_EQ(c.data(), p);
}

TEST(HostBlock, ATensorIsZeroedUnlessAskedNotTo) {
    const std::int64_t shape[] = {1 << 20};
    {
        k::tensor dirty(CB_DTYPE_INT32, 1, shape);
        std::memset(dirty.data(), 0xff, dirty.bytes());
    }
    const k::tensor reused(CB_DTYPE_INT32, 1, shape);  // may get the dirty block back: zeroed anyway
    for (std::int64_t i = 0; i < shape[0]; ++i) ASSERT_EQ(reused.as<std::int32_t>()[i], 0) << i;
    const k::tensor scratch = k::tensor::uninitialized(CB_DTYPE_INT32, 1, shape);
    EXPECT_TRUE(aligned(scratch.data()));
}

}  // namespace

// The staging chunk size: the preferred size when the IOMMU has room for two, smaller (whole
// pages) when it does not, never below a page.
#include "userspace/driver/chunk_plan.hpp"

#include <gtest/gtest.h>

namespace {

using cudabridge::nv::staging_chunk_bytes;

cb_dma_limits dart(uint64_t mapped) {
    cb_dma_limits l{};
    l.struct_size = sizeof l;
    l.max_mapped_bytes = 1536ull << 20;
    l.max_mappings = 65536;
    l.page_size = 16384;
    l.mapped_bytes = mapped;
    return l;
}

TEST(ChunkPlan, PreferredSizeWhenTwoFit) { EXPECT_EQ(staging_chunk_bytes(dart(0), 64ull << 20), 64ull << 20); }

TEST(ChunkPlan, TwoChunksAndTheirEdgePagesFitInWhatIsLeft) {
    const cb_dma_limits l = dart(1400ull << 20);
    const uint64_t chunk = staging_chunk_bytes(l, 1ull << 30);
    EXPECT_EQ(chunk % l.page_size, 0u);
    EXPECT_LE(2 * chunk + 4 * l.page_size, l.max_mapped_bytes - l.mapped_bytes);
    EXPECT_GT(2 * (chunk + l.page_size) + 4 * l.page_size, l.max_mapped_bytes - l.mapped_bytes);
}

TEST(ChunkPlan, UnlimitedIommuTakesThePreferredSizeRoundedToPages) {
    cb_dma_limits l{};
    l.max_mapped_bytes = UINT64_MAX;
    l.page_size = 4096;
    EXPECT_EQ(staging_chunk_bytes(l, (8ull << 20) + 100), 8ull << 20);
}

TEST(ChunkPlan, NeverBelowOnePage) {
    EXPECT_EQ(staging_chunk_bytes(dart(1536ull << 20), 64ull << 20), 16384u);
    EXPECT_EQ(staging_chunk_bytes(dart(0), 0), 16384u);
}

}  // namespace

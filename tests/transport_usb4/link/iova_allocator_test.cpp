// The IOVA allocator: first fit, coalescing, a non-zero base, a full aperture.
#include "link/iova_allocator.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cudabridge::usb4 {
namespace {

constexpr uint64_t kPage = 0x1000;
constexpr uint64_t kBase = 0x100000;

TEST(Usb4IovaAllocator, SequentialFromTheBase) {
    iova_allocator a(kBase, kBase + 64 * kPage, kPage);
    EXPECT_EQ(a.allocate(kPage), kBase);
    EXPECT_EQ(a.allocate(2 * kPage), kBase + kPage);
    EXPECT_EQ(a.allocate(kPage), kBase + 3 * kPage);
    EXPECT_EQ(a.free_bytes(), 60 * kPage);
    EXPECT_EQ(a.free_ranges(), 1u);
}

TEST(Usb4IovaAllocator, RefusesBadSizes) {
    iova_allocator a(kBase, kBase + 4 * kPage, kPage);
    EXPECT_FALSE(a.allocate(0));
    EXPECT_FALSE(a.allocate(kPage + 1));
    EXPECT_FALSE(a.allocate(5 * kPage));
    EXPECT_THROW(iova_allocator(0, kPage, kPage), std::invalid_argument);
    EXPECT_THROW(iova_allocator(kBase, kBase + kPage, 3000), std::invalid_argument);
}

TEST(Usb4IovaAllocator, FirstFitReusesTheLowestHole) {
    iova_allocator a(kBase, kBase + 64 * kPage, kPage);
    const auto x = *a.allocate(4 * kPage);
    const auto y = *a.allocate(2 * kPage);
    const auto z = *a.allocate(4 * kPage);
    a.release(x, 4 * kPage);
    a.release(z, 4 * kPage);  // merges with the free tail
    EXPECT_EQ(a.free_ranges(), 2u);
    EXPECT_EQ(a.allocate(3 * kPage), x);              // fits the first hole
    EXPECT_EQ(a.allocate(2 * kPage), y + 2 * kPage);  // does not: next range (z's old place)
}

TEST(Usb4IovaAllocator, CoalescesBothNeighbours) {
    iova_allocator a(kBase, kBase + 8 * kPage, kPage);
    uint64_t r[8];
    for (auto& v : r) v = *a.allocate(kPage);
    EXPECT_FALSE(a.allocate(kPage));  // aperture full
    EXPECT_EQ(a.free_ranges(), 0u);
    a.release(r[1], kPage);
    a.release(r[3], kPage);
    EXPECT_EQ(a.free_ranges(), 2u);
    a.release(r[2], kPage);  // joins 1 and 3
    EXPECT_EQ(a.free_ranges(), 1u);
    EXPECT_EQ(a.allocate(3 * kPage), r[1]);
    for (int i : {0, 4, 5, 6, 7}) a.release(r[i], kPage);
    a.release(r[1], 3 * kPage);
    EXPECT_EQ(a.free_ranges(), 1u);
    EXPECT_EQ(a.free_bytes(), 8 * kPage);
    EXPECT_EQ(a.allocate(8 * kPage), kBase);
    a.reset();
    EXPECT_EQ(a.free_bytes(), 8 * kPage);
}

}  // namespace
}  // namespace cudabridge::usb4

// The ring's PTX launch block: what the driver encodes the device decodes, and a block that is
// corrupt or past CUDA's limits is refused on either side.
#include "sim/modules/ptx_launch.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace cudabridge::nv::test {
namespace {

ptx_launch example() {
    ptx_launch l;
    l.module_id = 7;
    l.kernel_index = 2;
    l.grid[0] = 1000;
    l.grid[2] = 3;
    l.block[0] = 256;
    l.dynamic_shared = 4096;
    l.params = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    l.unmapped = {{0x10000, 0x30000}, {0x50000, 0x60000}};
    l.host_windows = {{0x7f0000001000, 8192, 0x4000}, {0x7f0000010000, 100, 0x9000}};
    return l;
}

TEST(PtxLaunchBlock, RoundTripsEveryField) {
    const ptx_launch l = example();
    ptx_launch back;
    std::string error;
    const auto bytes = encode_ptx_launch(l);
    ASSERT_EQ(decode_ptx_launch(bytes.data(), bytes.size(), back, error), CB_OK) << error;
    EXPECT_EQ(back.module_id, 7u);
    EXPECT_EQ(back.kernel_index, 2u);
    EXPECT_EQ(back.grid[0], 1000u);
    EXPECT_EQ(back.grid[2], 3u);
    EXPECT_EQ(back.block[0], 256u);
    EXPECT_EQ(back.dynamic_shared, 4096u);
    EXPECT_EQ(back.params, l.params);
    EXPECT_EQ(back.unmapped, l.unmapped);
    ASSERT_EQ(back.host_windows.size(), 2u);
    EXPECT_EQ(back.host_windows[1].address, 0x7f0000010000u);
    EXPECT_EQ(back.host_windows[1].size, 100u);
    EXPECT_EQ(back.host_windows[1].iova, 0x9000u);
    EXPECT_EQ(back.thread_count(), 1000u * 3 * 256);
}

TEST(PtxLaunchBlock, ATruncatedOrForeignBlockIsRefused) {
    const auto bytes = encode_ptx_launch(example());
    ptx_launch back;
    std::string error;
    for (size_t n = 0; n < bytes.size(); ++n)
        EXPECT_EQ(decode_ptx_launch(bytes.data(), n, back, error), CB_ERR_INVALID_ARGUMENT) << n;
    auto foreign = bytes;
    foreign[0] ^= 0xFF;
    EXPECT_EQ(decode_ptx_launch(foreign.data(), foreign.size(), back, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(PtxLaunchBlock, CudasLimitsHold) {
    std::string error;
    ptx_launch l = example();
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_OK) << error;
    l.block[0] = 1025;
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    l = example();
    l.block[0] = 32, l.block[1] = 32, l.block[2] = 2;  // 2048 threads
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    l = example();
    l.grid[1] = 0;
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    l = example();
    l.dynamic_shared = max_ptx_dynamic_shared + 1;
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("shared"), std::string::npos) << error;
    l = example();
    l.params.assign(max_ptx_param_bytes + 1, 0);
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    auto bytes = encode_ptx_launch(l);  // a driver that skipped the check: the device refuses it
    ptx_launch back;
    EXPECT_EQ(decode_ptx_launch(bytes.data(), bytes.size(), back, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(PtxLaunchBlock, OnlyWholeFreePagesAreUnmapped) {
    constexpr uint64_t page = 1u << 16;
    const auto pages = unmapped_pages({{100, page + 10},              // no whole page
                                       {page + 256, 4 * page + 512},  // pages 2 and 3
                                       {8 * page, 9 * page}});        // page 8 exactly
    ASSERT_EQ(pages.size(), 2u);
    EXPECT_EQ(pages[0], (address_range{2 * page, 4 * page}));
    EXPECT_EQ(pages[1], (address_range{8 * page, 9 * page}));
}

TEST(PtxLaunchBlock, PastTheRangeLimitTheLargestHolesAreKept) {
    constexpr uint64_t page = 1u << 16;
    std::vector<address_range> free_blocks;
    for (uint64_t i = 0; i < max_unmapped_ranges + 10; ++i)
        free_blocks.push_back({i * 8 * page, i * 8 * page + (i == 3 ? 5 : 1) * page});
    const auto pages = unmapped_pages(free_blocks);
    ASSERT_EQ(pages.size(), max_unmapped_ranges);
    EXPECT_NE(std::find(pages.begin(), pages.end(), address_range{3 * 8 * page, 3 * 8 * page + 5 * page}), pages.end());
    EXPECT_TRUE(std::is_sorted(pages.begin(), pages.end(),
                               [](const address_range& a, const address_range& b) { return a.first < b.first; }));
}

TEST(PtxLaunchBlock, UnorderedOrTooManyRangesAreRefused) {
    std::string error;
    ptx_launch l = example();
    std::swap(l.unmapped[0], l.unmapped[1]);
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    l.unmapped.assign(max_unmapped_ranges + 1, {});
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
}

TEST(PtxLaunchBlock, OverlappingEmptyOrTooManyHostWindowsAreRefused) {
    std::string error;
    ptx_launch l = example();
    ASSERT_EQ(check_ptx_launch(l, "k", error), CB_OK) << error;
    l.host_windows[1].address = l.host_windows[0].address + 4096;  // inside the first
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    l = example();
    l.host_windows[0].size = 0;
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    l = example();
    l.host_windows.assign(max_host_windows + 1, {0x1000, 1, 0});
    EXPECT_EQ(check_ptx_launch(l, "k", error), CB_ERR_INVALID_ARGUMENT);
    // The largest block the driver may send still fits what the device fetches (64 KiB,
    // compute_engine.hpp's max_launch_block_bytes).
    l = example();
    l.params.assign(max_ptx_param_bytes, 0);
    l.unmapped.assign(max_unmapped_ranges, {});
    for (size_t i = 0; i < max_unmapped_ranges; ++i) l.unmapped[i] = {0x10000 * (2 * i + 1), 0x10000 * (2 * i + 2)};
    l.host_windows.clear();
    for (size_t i = 0; i < max_host_windows; ++i) l.host_windows.push_back({0x1000 * (2 * i + 1), 0x1000, 0});
    EXPECT_LE(encode_ptx_launch(l).size(), size_t{64} << 10);
}

}  // namespace
}  // namespace cudabridge::nv::test

// The host mapping of BAR1 (cb_endpoint_model_table.bar_map, ABI 1.11): the CPU reads and writes
// VRAM itself through it, within the BAR, and the pointer stays safe to touch after the board is gone.
#include "gpu_harness.hpp"

#include <cstring>

namespace cudabridge::test {
namespace {

uint8_t* map_bar(gpu_harness& g, uint32_t bar, uint64_t offset, uint64_t size, cb_status want = CB_OK) {
    void* host = nullptr;
    EXPECT_EQ(g.table->bar_map(g.model.get(), bar, offset, size, &host), want);
    return static_cast<uint8_t*>(host);
}

std::vector<uint8_t> pattern(size_t n, uint8_t salt) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 13 + salt);
    return v;
}

TEST(DeviceModelBar1Mapping, TheMappingIsVramItself) {
    gpu_harness g;
    g.bring_up();
    uint8_t* host = map_bar(g, 1, 0x4000, 8192);
    ASSERT_NE(host, nullptr);
    // What the copy engine wrote, the CPU reads through the mapping ...
    const auto written = pattern(8192, 1);
    g.h2d(hw::vram_base + 0x4000, written.data(), written.size());
    EXPECT_EQ(std::memcmp(host, written.data(), written.size()), 0);
    // ... and what the CPU stores there, the copy engine reads back.
    const auto stored = pattern(8192, 77);
    std::memcpy(host, stored.data(), stored.size());
    std::vector<uint8_t> back(stored.size());
    g.d2h(back.data(), hw::vram_base + 0x4000, back.size());
    EXPECT_EQ(back, stored);
}

TEST(DeviceModelBar1Mapping, OnlyBar1MapsAndOnlyInsideTheBar) {
    gpu_harness g;
    g.bring_up();
    cb_bar_info info{};
    ASSERT_EQ(g.table->bar_info(g.model.get(), 1, &info), CB_OK);
    map_bar(g, 0, 0, 4096, CB_ERR_UNSUPPORTED);  // registers are not memory
    map_bar(g, 3, 0, 4096, CB_ERR_UNSUPPORTED);
    map_bar(g, 1, 0, 0, CB_ERR_INVALID_ARGUMENT);
    map_bar(g, 1, info.size - 4096, 4097, CB_ERR_INVALID_ARGUMENT);
    map_bar(g, 1, info.size, 1, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(map_bar(g, 1, info.size - 4096, 4096), nullptr);
}

TEST(DeviceModelBar1Mapping, ABar1WithoutResizableBarShowsOnlyTheStartOfVram) {
    nv::gpu_profile small_bar = profile("rtx-4060-ti");
    small_bar.resizable_bar = false;
    sdk::host host(nullptr);
    nv::device_model_options options;
    options.compute_threads = 1;
    nv::device_model model(host, small_bar, options);
    const cb_endpoint_model_table* t = nv::device_model::table();
    cb_bar_info info{};
    ASSERT_EQ(t->bar_info(&model, 1, &info), CB_OK);
    ASSERT_EQ(info.size, hw::bar1_default_size);
    void* p = nullptr;
    EXPECT_EQ(t->bar_map(&model, 1, info.size - 4096, 4096, &p), CB_OK);
    EXPECT_EQ(t->bar_map(&model, 1, info.size, 4096, &p), CB_ERR_INVALID_ARGUMENT);
}

TEST(DeviceModelBar1Mapping, TheMappingFollowsTheWindowAsItStoodWhenMade) {
    gpu_harness g;
    g.bring_up();
    const auto at_one_mib = pattern(4096, 9);
    g.h2d(hw::vram_base + (1u << 20), at_one_mib.data(), at_one_mib.size());
    g.wr64(hw::reg::bar1_window_lo, 1u << 20);
    const uint8_t* host = map_bar(g, 1, 0, 4096);
    ASSERT_NE(host, nullptr);
    EXPECT_EQ(std::memcmp(host, at_one_mib.data(), at_one_mib.size()), 0);
}

TEST(DeviceModelBar1Mapping, AnAccessAfterTheBoardIsGoneReadsZerosInsteadOfFaulting) {
    uint8_t* host = nullptr;
    {
        gpu_harness g;
        g.bring_up();
        host = map_bar(g, 1, 0x10000, 4096);
        ASSERT_NE(host, nullptr);
        std::memset(host, 0xA5, 4096);
        g.detach();
        g.model.reset();
    }
    EXPECT_EQ(host[0], 0);
    EXPECT_EQ(host[4095], 0);
    host[17] = 1;  // lands nowhere a device sees, and does not fault
    EXPECT_EQ(host[17], 1);
}

}  // namespace
}  // namespace cudabridge::test

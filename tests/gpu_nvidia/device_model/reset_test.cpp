// Soft and hard reset (register, endpoint reset, FLR), and PMC_ENABLE / bus master holding the
// engines.
#include "gpu_harness.hpp"

namespace cudabridge::test {
namespace {

std::vector<uint8_t> pattern(size_t n) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i ^ (i >> 8) ^ 0x5C);
    return v;
}

TEST(DeviceModelReset, SoftResetClearsTheEnginesAndKeepsMemoryAndConfiguration) {
    gpu_harness g;
    g.bring_up();
    const auto data = pattern(4096);
    g.h2d(hw::vram_base + 0x1000, data.data(), data.size());
    g.wr(hw::reg::power_limit_mw, g.rd(hw::reg::min_power_mw));
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(static_cast<hw::opcode>(50)))));  // leave an error behind
    ASSERT_TRUE(g.rd(hw::reg::status) & hw::status_error);

    g.wr(hw::reg::reset, hw::reset_soft);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 0u);
    EXPECT_EQ(g.rd(hw::reg::ring_get), 0u);
    EXPECT_EQ(g.rd(hw::reg::ring_put), 0u);
    EXPECT_EQ(g.fence_done(), 0u);
    EXPECT_EQ(g.rd(hw::reg::intr_status), 0u);
    EXPECT_EQ(g.rd(hw::reg::error_code), 0u);
    EXPECT_EQ(g.rd(hw::reg::status), hw::status_ready);
    // Configuration and settings kept.
    EXPECT_EQ(g.rd(hw::reg::ring_base_lo), ring_iova);
    EXPECT_EQ(g.rd(hw::reg::ring_entries), ring_entries);
    EXPECT_EQ(g.rd(hw::reg::intr_enable), hw::intr_fence | hw::intr_error);
    EXPECT_EQ(g.rd(hw::reg::power_limit_mw), g.rd(hw::reg::min_power_mw));

    // The ring comes back without reprogramming, and VRAM survived.
    g.restart_ring();
    ASSERT_EQ(g.rd(hw::reg::ring_control), 1u);
    std::vector<uint8_t> back(data.size());
    g.d2h(back.data(), hw::vram_base + 0x1000, back.size());
    EXPECT_EQ(back, data);
}

TEST(DeviceModelReset, HardResetReleasesVramAndRestoresPowerOnState) {
    gpu_harness g;
    g.bring_up();
    const auto data = pattern(8192);
    g.h2d(hw::vram_base, data.data(), data.size());
    g.wr(hw::reg::power_limit_mw, g.rd(hw::reg::min_power_mw));
    g.wr64(hw::reg::bar1_window_lo, 1u << 20);
    g.wr(hw::pmc_enable, 3);

    g.wr(hw::reg::reset, hw::reset_hard);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 0u);
    EXPECT_EQ(g.rd(hw::reg::ring_base_lo), 0u);
    EXPECT_EQ(g.rd(hw::reg::ring_entries), 0u);
    EXPECT_EQ(g.rd(hw::reg::fence_addr_lo), 0u);
    EXPECT_EQ(g.rd(hw::reg::intr_enable), 0u);
    EXPECT_EQ(g.rd(hw::reg::bar1_window_lo), 0u);
    EXPECT_EQ(g.rd(hw::pmc_enable), 1u);
    EXPECT_EQ(g.rd(hw::reg::power_limit_mw), g.rd(hw::reg::default_power_mw));
    EXPECT_EQ(g.rd(hw::reg::status), hw::status_ready);

    g.bring_up_again();
    std::vector<uint8_t> back(data.size(), 0xEE);
    g.d2h(back.data(), hw::vram_base, back.size());
    EXPECT_EQ(back, std::vector<uint8_t>(data.size(), 0));  // VRAM contents gone
}

TEST(DeviceModelReset, EndpointResetKinds) {
    gpu_harness g;
    g.bring_up();
    const auto data = pattern(4096);
    g.h2d(hw::vram_base, data.data(), data.size());
    // Link retrain: nothing in the function changes.
    ASSERT_EQ(g.table->reset(g.model.get(), CB_RESET_LINK_RETRAIN), CB_OK);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 1u);
    // Soft: engines only.
    ASSERT_EQ(g.table->reset(g.model.get(), CB_RESET_SOFT), CB_OK);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 0u);
    EXPECT_EQ(g.rd(hw::reg::ring_base_lo), ring_iova);
    // Function-level reset: hard.
    ASSERT_EQ(g.table->reset(g.model.get(), CB_RESET_FUNCTION), CB_OK);
    EXPECT_EQ(g.rd(hw::reg::ring_base_lo), 0u);
    EXPECT_EQ(g.table->reset(g.model.get(), 99), CB_ERR_INVALID_ARGUMENT);
    g.bring_up_again();
    std::vector<uint8_t> back(data.size(), 0xEE);
    g.d2h(back.data(), hw::vram_base, back.size());
    EXPECT_EQ(back, std::vector<uint8_t>(data.size(), 0));
}

TEST(DeviceModelReset, FlrThroughTheDeviceControlRegister) {
    gpu_harness g;
    g.bring_up();
    // The PCIe capability, found by walking the list.
    uint8_t at = 0;
    ASSERT_EQ(g.table->config_read(g.model.get(), 0x34, &at, 1), CB_OK);
    for (uint8_t id = 0; at != 0; at = [&] {
             uint8_t n = 0;
             g.table->config_read(g.model.get(), at + 1u, &n, 1);
             return n;
         }()) {
        ASSERT_EQ(g.table->config_read(g.model.get(), at, &id, 1), CB_OK);
        if (id == 0x10) break;
    }
    ASSERT_NE(at, 0);
    uint16_t control = 0;
    ASSERT_EQ(g.table->config_read(g.model.get(), at + 8u, &control, 2), CB_OK);
    const uint16_t flr = control | 0x8000;
    ASSERT_EQ(g.table->config_write(g.model.get(), at + 8u, &flr, 2), CB_OK);
    uint16_t after = 0;
    ASSERT_EQ(g.table->config_read(g.model.get(), at + 8u, &after, 2), CB_OK);
    EXPECT_EQ(after, control);  // the FLR bit reads 0
    EXPECT_EQ(g.rd(hw::reg::ring_base_lo), 0u);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 0u);
}

TEST(DeviceModelReset, PmcEnableAndBusMasterHoldTheEngines) {
    gpu_harness g;
    g.bring_up();
    g.wr(hw::pmc_enable, 0);
    EXPECT_EQ(g.rd(hw::reg::status) & hw::status_ready, 0u);
    const uint64_t fence = g.submit(gpu_harness::make(hw::opcode::nop));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_LT(g.fence_done(), fence);
    EXPECT_TRUE(g.rd(hw::reg::status) & hw::status_busy);  // pending
    g.wr(hw::pmc_enable, 1);
    ASSERT_TRUE(g.wait(fence));

    // Bus master off: the device may not DMA, so the ring waits.
    uint16_t command = 0;
    ASSERT_EQ(g.table->config_read(g.model.get(), 4, &command, 2), CB_OK);
    const uint16_t off = command & ~4;
    ASSERT_EQ(g.table->config_write(g.model.get(), 4, &off, 2), CB_OK);
    const uint64_t fence2 = g.submit(gpu_harness::make(hw::opcode::nop));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_LT(g.fence_done(), fence2);
    ASSERT_EQ(g.table->config_write(g.model.get(), 4, &command, 2), CB_OK);
    ASSERT_TRUE(g.wait(fence2));
}

}  // namespace
}  // namespace cudabridge::test

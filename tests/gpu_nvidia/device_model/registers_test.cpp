// BAR0 identification and our block's fixed registers, PTIMER, the BAR1 / BAR3 apertures and
// lazily reserved VRAM.
#include "gpu_harness.hpp"

#include "common/hw/chip_id.hpp"

#include <fstream>
#include <string>

namespace cudabridge::test {
namespace {

TEST(DeviceModelRegisters, BootRegistersDecodeToTheProfilesChip) {
    for (const char* key : {"rtx-5090", "rtx-4090", "a100-pcie-40gb", "h100-pcie", "rtx-3060"}) {
        SCOPED_TRACE(key);
        gpu_harness g(key);
        const uint32_t boot42 = g.rd(hw::pmc_boot_42);
        const hw::chip_id id = hw::decode_boot_42(boot42);
        EXPECT_EQ(hw::chip_name(id), profile(key).chip);
        EXPECT_EQ(hw::architecture_name(id.architecture), profile(key).architecture);
        // BOOT_0 [28:20] carries the same chip id.
        const uint32_t boot0 = g.rd(hw::pmc_boot_0);
        EXPECT_EQ((boot0 >> 20) & 0x1FF, (id.architecture << 4) | id.implementation);
    }
    // Known values: GB202 is Blackwell 0x1B implementation 2, GA100 Ampere 0x17 implementation 0.
    EXPECT_EQ(hw::decode_boot_42(gpu_harness("rtx-5090").rd(hw::pmc_boot_42)).architecture, 0x1Bu);
    EXPECT_EQ(hw::decode_boot_42(gpu_harness("rtx-5090").rd(hw::pmc_boot_42)).implementation, 2u);
    EXPECT_EQ(hw::decode_boot_42(gpu_harness("a100-pcie-40gb").rd(hw::pmc_boot_42)).architecture, 0x17u);
    // A board chip with a suffix (GA104GL) reports its die.
    EXPECT_EQ(hw::chip_name(hw::decode_boot_42(gpu_harness("rtx-a4000").rd(hw::pmc_boot_42))), "GA104");
}

TEST(DeviceModelRegisters, MagicVersionAndVram) {
    gpu_harness g("rtx-5090");
    EXPECT_EQ(g.rd(hw::reg::magic), hw::cb_magic_value);
    EXPECT_EQ(g.rd(hw::reg::version), hw::cb_interface_version);
    EXPECT_EQ((uint64_t{g.rd(hw::reg::vram_size_hi)} << 32) | g.rd(hw::reg::vram_size_lo), 32ull << 30);
    EXPECT_EQ((uint64_t{g.rd(hw::reg::vram_base_hi)} << 32) | g.rd(hw::reg::vram_base_lo), hw::vram_base);
    EXPECT_EQ(g.rd(hw::reg::compute_threads), 2u);
    EXPECT_EQ(g.rd(hw::pmc_enable) & 1u, 1u);
    EXPECT_EQ(g.rd(hw::reg::status), hw::status_ready);
    // Unknown offsets read 0 and ignore writes.
    EXPECT_EQ(g.rd(0x123450), 0u);
    g.wr(0x123450, 7);
    EXPECT_EQ(g.rd(0x123450), 0u);
    // An 8-byte read is LO then HI; a 2-byte read takes part of a register.
    uint64_t size64 = 0;
    ASSERT_EQ(g.table->mmio_read(g.model.get(), 0, hw::reg::vram_size_lo, &size64, 8), CB_OK);
    EXPECT_EQ(size64, 32ull << 30);
    uint16_t vendor_half = 0;
    ASSERT_EQ(g.table->mmio_read(g.model.get(), 0, hw::reg::magic + 2, &vendor_half, 2), CB_OK);
    EXPECT_EQ(vendor_half, hw::cb_magic_value >> 16);
    // Outside BAR0, misaligned, narrow writes, missing BARs: refused.
    uint32_t v = 0;
    EXPECT_EQ(g.table->mmio_read(g.model.get(), 0, hw::bar0_size, &v, 4), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g.table->mmio_read(g.model.get(), 0, 2, &v, 4), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g.table->mmio_write(g.model.get(), 0, hw::reg::intr_enable, &v, 2), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g.table->mmio_read(g.model.get(), 2, 0, &v, 4), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g.table->mmio_read(g.model.get(), 0, 0, &v, 3), CB_ERR_INVALID_ARGUMENT);
}

TEST(DeviceModelRegisters, PtimerAdvancesAndLatchesItsHighHalf) {
    gpu_harness g;
    auto read_timer = [&] {
        const uint32_t lo = g.rd(hw::ptimer_time_0);
        return (uint64_t{g.rd(hw::ptimer_time_1)} << 32) | lo;
    };
    const uint64_t a = read_timer();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const uint64_t b = read_timer();
    EXPECT_GT(a, 0u);
    EXPECT_GT(b, a);
}

TEST(DeviceModelRegisters, Bar1ShowsVramThroughItsWindow) {
    gpu_harness g;
    g.bring_up();
    // Through BAR1 at window 0, then seen by the copy engine.
    std::vector<uint8_t> pattern(8192);
    for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
    ASSERT_EQ(g.table->mmio_write(g.model.get(), 1, 0x4000, pattern.data(), static_cast<uint32_t>(pattern.size())),
              CB_OK);
    std::vector<uint8_t> back(pattern.size());
    g.d2h(back.data(), hw::vram_base + 0x4000, back.size());
    EXPECT_EQ(back, pattern);
    // Move the window: BAR1 offset 0 is now VRAM offset 1 MiB (low bits below 64 KiB ignored).
    const std::vector<uint8_t> ones(4096, 0x5A);
    g.h2d(hw::vram_base + (1u << 20), ones.data(), ones.size());
    g.wr64(hw::reg::bar1_window_lo, (1u << 20) + 123);
    EXPECT_EQ(g.rd(hw::reg::bar1_window_lo), 1u << 20);
    std::vector<uint8_t> seen(4096);
    ASSERT_EQ(g.table->mmio_read(g.model.get(), 1, 0, seen.data(), 4096), CB_OK);
    EXPECT_EQ(seen, ones);
    // Past the end of the BAR: refused; past the end of VRAM but inside the BAR: zeros.
    uint32_t v = 1;
    cb_bar_info info{};
    ASSERT_EQ(g.table->bar_info(g.model.get(), 1, &info), CB_OK);
    EXPECT_EQ(g.table->mmio_read(g.model.get(), 1, info.size, &v, 4), CB_ERR_INVALID_ARGUMENT);
    g.wr64(hw::reg::bar1_window_lo, profile("rtx-4060-ti").vram_bytes);
    ASSERT_EQ(g.table->mmio_read(g.model.get(), 1, 0, &v, 4), CB_OK);
    EXPECT_EQ(v, 0u);
    // BAR3: plain instance memory.
    const uint64_t word = 0x0123456789ABCDEFull;
    ASSERT_EQ(g.table->mmio_write(g.model.get(), 3, 0x100, &word, 8), CB_OK);
    uint64_t word_back = 0;
    ASSERT_EQ(g.table->mmio_read(g.model.get(), 3, 0x100, &word_back, 8), CB_OK);
    EXPECT_EQ(word_back, word);
    EXPECT_EQ(g.table->mmio_read(g.model.get(), 3, hw::bar3_size, &word_back, 8), CB_ERR_INVALID_ARGUMENT);
}

uint64_t rss_bytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

TEST(DeviceModelRegisters, VramIsReservedLazily) {
    const uint64_t before = rss_bytes();
    ASSERT_GT(before, 0u);
    {
        gpu_harness g("rtx-5090");  // 32 GiB of VRAM
        g.bring_up();
        // Touch both ends and the middle.
        const std::vector<uint8_t> bytes(1u << 20, 0x11);
        const uint64_t gib = 1ull << 30;
        for (uint64_t at : {uint64_t{0}, 16 * gib, 32 * gib - bytes.size()})
            g.h2d(hw::vram_base + at, bytes.data(), bytes.size());
        std::vector<uint8_t> back(bytes.size());
        g.d2h(back.data(), hw::vram_base + (32ull << 30) - bytes.size(), back.size());
        EXPECT_EQ(back, bytes);
        EXPECT_LT(rss_bytes(), before + (1ull << 30));
    }
    EXPECT_LT(rss_bytes(), before + (1ull << 30));
}

}  // namespace
}  // namespace cudabridge::test

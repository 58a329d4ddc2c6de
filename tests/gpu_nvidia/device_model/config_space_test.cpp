// PCI config space: identity, class by board kind, BAR sizing, the command register, and the
// capability list with the PCIe link.
#include "gpu_harness.hpp"

namespace cudabridge::test {
namespace {

uint32_t cfg32(gpu_harness& g, uint32_t offset) {
    uint32_t v = 0;
    EXPECT_EQ(g.table->config_read(g.model.get(), offset, &v, 4), CB_OK);
    return v;
}
uint16_t cfg16(gpu_harness& g, uint32_t offset) {
    uint16_t v = 0;
    EXPECT_EQ(g.table->config_read(g.model.get(), offset, &v, 2), CB_OK);
    return v;
}
uint8_t cfg8(gpu_harness& g, uint32_t offset) {
    uint8_t v = 0;
    EXPECT_EQ(g.table->config_read(g.model.get(), offset, &v, 1), CB_OK);
    return v;
}
void cfg_write32(gpu_harness& g, uint32_t offset, uint32_t v) {
    EXPECT_EQ(g.table->config_write(g.model.get(), offset, &v, 4), CB_OK);
}

// Size of a BAR from the all-ones probe, as an OS computes it.
uint64_t probe_bar_size(gpu_harness& g, uint32_t offset, bool is_64bit) {
    const uint32_t old_lo = cfg32(g, offset);
    const uint32_t old_hi = is_64bit ? cfg32(g, offset + 4) : 0;
    cfg_write32(g, offset, 0xFFFFFFFF);
    if (is_64bit) cfg_write32(g, offset + 4, 0xFFFFFFFF);
    uint64_t mask = cfg32(g, offset) & ~0xFu;
    if (is_64bit)
        mask |= uint64_t{cfg32(g, offset + 4)} << 32;
    else
        mask |= 0xFFFFFFFF00000000ull;
    cfg_write32(g, offset, old_lo);
    if (is_64bit) cfg_write32(g, offset + 4, old_hi);
    return ~mask + 1;
}

// Offset of capability `id` in the list, 0 when absent.
uint32_t find_capability(gpu_harness& g, uint8_t id) {
    uint32_t at = cfg8(g, 0x34);
    for (int hops = 0; at != 0 && hops < 48; ++hops) {
        if (cfg8(g, at) == id) return at;
        at = cfg8(g, at + 1);
    }
    return 0;
}

TEST(DeviceModelConfig, IdentityAndClassFollowTheProfile) {
    struct expect {
        const char* key;
        uint32_t pci_class;
    };
    for (const expect e : {expect{"rtx-5090", 0x030000}, expect{"rtx-4090", 0x030000},
                           expect{"a100-pcie-40gb", 0x030200}, expect{"h100-pcie", 0x030200}, expect{"l4", 0x030200}}) {
        SCOPED_TRACE(e.key);
        gpu_harness g(e.key);
        EXPECT_EQ(cfg16(g, 0x00), 0x10de);
        EXPECT_EQ(cfg16(g, 0x02), profile(e.key).pci_device_id);
        EXPECT_EQ(cfg32(g, 0x08) >> 8, e.pci_class);
        EXPECT_EQ(cfg8(g, 0x08), 0xA1);  // the chip's revision A1
        EXPECT_EQ(cfg16(g, 0x2C), 0x10de);
        EXPECT_EQ(cfg16(g, 0x2E), profile(e.key).pci_device_id);
        EXPECT_EQ(cfg8(g, 0x0E) & 0x7F, 0);       // type 0 header
        EXPECT_TRUE(cfg16(g, 0x06) & (1u << 4));  // capability list present
    }
}

TEST(DeviceModelConfig, BarsSizeAsRealOnes) {
    gpu_harness g("rtx-5090");
    EXPECT_EQ(probe_bar_size(g, 0x10, false), 16ull << 20);
    EXPECT_EQ(cfg32(g, 0x10) & 0xF, 0x0u);  // 32-bit, non-prefetchable memory
    EXPECT_EQ(cfg32(g, 0x14) & 0xF, 0xCu);  // 64-bit prefetchable
    EXPECT_EQ(cfg32(g, 0x1C) & 0xF, 0xCu);
    EXPECT_EQ(probe_bar_size(g, 0x14, true), 32ull << 30);  // resizable BAR: all 32 GiB of VRAM
    EXPECT_EQ(probe_bar_size(g, 0x1C, true), 32ull << 20);
    EXPECT_EQ(cfg32(g, 0x24), 0u);  // no I/O BAR

    // An address written sticks (size-aligned), and bar_info reports it.
    cfg_write32(g, 0x10, 0xF3000000);
    cfg_write32(g, 0x14, 0x00000000);
    cfg_write32(g, 0x18, 0x00000040);
    EXPECT_EQ(cfg32(g, 0x10), 0xF3000000u);
    cb_bar_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(g.table->bar_info(g.model.get(), 0, &info), CB_OK);
    EXPECT_EQ(info.size, 16ull << 20);
    EXPECT_EQ(info.bus_address, 0xF3000000u);
    EXPECT_FALSE(info.is_64bit);
    ASSERT_EQ(g.table->bar_info(g.model.get(), 1, &info), CB_OK);
    EXPECT_EQ(info.size, 32ull << 30);
    EXPECT_EQ(info.bus_address, 0x40ull << 32);
    EXPECT_TRUE(info.is_64bit);
    EXPECT_TRUE(info.prefetchable);
    ASSERT_EQ(g.table->bar_info(g.model.get(), 3, &info), CB_OK);
    EXPECT_EQ(info.size, 32ull << 20);
    ASSERT_EQ(g.table->bar_info(g.model.get(), 2, &info), CB_OK);
    EXPECT_EQ(info.size, 0u);
    EXPECT_EQ(g.table->bar_info(g.model.get(), 6, &info), CB_ERR_INVALID_ARGUMENT);
}

TEST(DeviceModelConfig, Bar1Is256MiBWithoutResizableBar) {
    nv::gpu_profile p = profile("rtx-4090");
    p.resizable_bar = false;
    nv::device_model m(sdk::host(nullptr), p, {});
    EXPECT_EQ(m.identity().bar1_size, 256ull << 20);
    cb_bar_info info{};
    ASSERT_EQ(m.bar_info(1, info), CB_OK);
    EXPECT_EQ(info.size, 256ull << 20);
    // A100 40 GiB with resizable BAR: rounded up to 64 GiB.
    gpu_harness a100("a100-pcie-40gb");
    ASSERT_EQ(a100.table->bar_info(a100.model.get(), 1, &info), CB_OK);
    EXPECT_EQ(info.size, 64ull << 30);
}

TEST(DeviceModelConfig, CommandRegisterGatesMemoryDecoding) {
    gpu_harness g;
    const uint16_t command = cfg16(g, 0x04);
    EXPECT_EQ(command & 0x6, 0x6);  // memory space and bus master on
    uint16_t off = command & ~0x2;
    ASSERT_EQ(g.table->config_write(g.model.get(), 0x04, &off, 2), CB_OK);
    EXPECT_EQ(cfg16(g, 0x04), off);
    EXPECT_EQ(g.rd(hw::reg::magic), 0xFFFFFFFFu);  // the function does not answer
    ASSERT_EQ(g.table->config_write(g.model.get(), 0x04, &command, 2), CB_OK);
    EXPECT_EQ(g.rd(hw::reg::magic), hw::cb_magic_value);
    // Read-only fields ignore writes.
    const uint32_t id = cfg32(g, 0);
    cfg_write32(g, 0, 0x12345678);
    EXPECT_EQ(cfg32(g, 0), id);
    // Bad accesses are refused, never crash.
    uint32_t v = 0;
    EXPECT_EQ(g.table->config_read(g.model.get(), 4096, &v, 4), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g.table->config_write(g.model.get(), 2, &v, 4), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g.table->config_write(g.model.get(), 0, &v, 3), CB_ERR_INVALID_ARGUMENT);
}

TEST(DeviceModelConfig, CapabilitiesReportTheLink) {
    {
        gpu_harness g("rtx-5090");
        EXPECT_NE(find_capability(g, 0x01), 0u);  // power management
        EXPECT_NE(find_capability(g, 0x05), 0u);  // MSI
        const uint32_t pcie = find_capability(g, 0x10);
        ASSERT_NE(pcie, 0u);
        EXPECT_EQ(cfg16(g, pcie + 2) & 0xF, 2);         // capability version 2
        EXPECT_EQ((cfg16(g, pcie + 2) >> 4) & 0xF, 0);  // PCI Express endpoint
        const uint32_t link_cap = cfg32(g, pcie + 0x0C);
        EXPECT_EQ(link_cap & 0xF, 5u);  // Gen5
        EXPECT_EQ((link_cap >> 4) & 0x3F, 16u);
        const uint16_t link_status = cfg16(g, pcie + 0x12);
        EXPECT_EQ(link_status & 0xF, 5);
        EXPECT_EQ((link_status >> 4) & 0x3F, 16);
        EXPECT_TRUE(cfg32(g, pcie + 0x04) & (1u << 28));  // FLR capable
    }
    {
        nv::device_model_options o;
        o.link_gen = 3;
        o.link_width = 4;  // an eGPU enclosure's x4 Gen3 link
        gpu_harness g("rtx-4090", o);
        const uint32_t pcie = find_capability(g, 0x10);
        ASSERT_NE(pcie, 0u);
        EXPECT_EQ(cfg32(g, pcie + 0x0C) & 0xF, 4u);  // Ada: Gen4 capable
        const uint16_t link_status = cfg16(g, pcie + 0x12);
        EXPECT_EQ(link_status & 0xF, 3);
        EXPECT_EQ((link_status >> 4) & 0x3F, 4);
    }
}

}  // namespace
}  // namespace cudabridge::test

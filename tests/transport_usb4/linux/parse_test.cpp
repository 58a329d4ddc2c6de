// Parsing what sysfs prints: link speeds, PCIe generations, AER totals, security levels,
// Thunderbolt lane speeds, PCI addresses, and the C ABI's fixed strings.
#include "sysfs_aer.hpp"
#include "sysfs_fixed_string.hpp"
#include "sysfs_pci_devices.hpp"
#include "sysfs_pcie_link.hpp"
#include "sysfs_tb_devices.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace cudabridge::usb4::linux_sysfs {
namespace {

TEST(LinuxParse, LinkSpeedsInBothKernelSpellings) {
    EXPECT_DOUBLE_EQ(parse_link_speed_gts("8.0 GT/s PCIe"), 8.0);
    EXPECT_DOUBLE_EQ(parse_link_speed_gts("2.5 GT/s PCIe"), 2.5);
    EXPECT_DOUBLE_EQ(parse_link_speed_gts("16 GT/s"), 16.0);  // before Linux 5.2
    EXPECT_DOUBLE_EQ(parse_link_speed_gts("Unknown"), 0.0);
    EXPECT_DOUBLE_EQ(parse_link_speed_gts("Unknown speed"), 0.0);
    EXPECT_DOUBLE_EQ(parse_link_speed_gts(""), 0.0);
}

TEST(LinuxParse, GenerationOfEachRate) {
    EXPECT_EQ(pcie_generation(2.5), 1u);
    EXPECT_EQ(pcie_generation(5.0), 2u);
    EXPECT_EQ(pcie_generation(8.0), 3u);
    EXPECT_EQ(pcie_generation(16.0), 4u);
    EXPECT_EQ(pcie_generation(32.0), 5u);
    EXPECT_EQ(pcie_generation(64.0), 6u);
    EXPECT_EQ(pcie_generation(0.0), 0u);
    EXPECT_EQ(pcie_generation(12.0), 0u);
}

TEST(LinuxParse, AerReadsTheTotalLineNotTheSum) {
    // One ERR_COR message can carry several errors: the TOTAL need not equal the sum.
    const char* text = "RxErr 12\nBadTLP 3\nBadDLLP 5\nRollover 0\nTOTAL_ERR_COR 21\n";
    EXPECT_EQ(parse_aer_total(text, "TOTAL_ERR_COR"), 21u);
    EXPECT_EQ(parse_aer_total("RxErr 2\nBadTLP 3\n", "TOTAL_ERR_COR"), 5u);  // no TOTAL: the sum
    EXPECT_EQ(parse_aer_total("dev_cor_errs_bit[9] 4\nTOTAL_ERR_COR 4", "TOTAL_ERR_COR"), 4u);
    EXPECT_FALSE(parse_aer_total("", "TOTAL_ERR_COR").has_value());
    EXPECT_FALSE(parse_aer_total("garbage\n", "TOTAL_ERR_COR").has_value());
}

TEST(LinuxParse, SecurityLevels) {
    bool known = false;
    EXPECT_EQ(parse_security_level("none", known), CB_SECURITY_NONE);
    EXPECT_TRUE(known);
    EXPECT_EQ(parse_security_level("user", known), CB_SECURITY_USER);
    EXPECT_EQ(parse_security_level("secure", known), CB_SECURITY_SECURE);
    EXPECT_EQ(parse_security_level("dponly", known), CB_SECURITY_DPONLY);
    EXPECT_EQ(parse_security_level("usbonly", known), CB_SECURITY_USBONLY);
    EXPECT_EQ(parse_security_level("nopcie", known), CB_SECURITY_NOPCIE);
    EXPECT_TRUE(known);
    parse_security_level("paranoid", known);
    EXPECT_FALSE(known);
}

TEST(LinuxParse, ThunderboltLaneSpeedAndGeneration) {
    EXPECT_DOUBLE_EQ(parse_gbps("20.0 Gb/s"), 20.0);
    EXPECT_DOUBLE_EQ(parse_gbps("40.0 Gb/s"), 40.0);
    EXPECT_DOUBLE_EQ(parse_gbps(""), 0.0);
    tb_router r;
    r.generation = 3;
    EXPECT_EQ(link_generation_of(r), CB_LINK_TB3);
    r.generation = 4;
    r.rx_speed_gbps = 20;
    EXPECT_EQ(link_generation_of(r), CB_LINK_USB4_V1);
    r.usb4_version = "2.0";
    EXPECT_EQ(link_generation_of(r), CB_LINK_USB4_V2);
    r.usb4_version = "1.0";
    r.rx_speed_gbps = 40;  // Gen 4 lanes exist only in USB4 v2
    EXPECT_EQ(link_generation_of(r), CB_LINK_USB4_V2);
    r.generation = 2;
    EXPECT_EQ(link_generation_of(r), CB_LINK_UNKNOWN);
}

TEST(LinuxParse, PciAddresses) {
    EXPECT_TRUE(is_pci_address("0000:2e:00.0"));
    EXPECT_TRUE(is_pci_address("10000:e1:00.7"));  // VMD domain
    EXPECT_FALSE(is_pci_address("0000:2e:00.8"));
    EXPECT_FALSE(is_pci_address("2e:00.0"));
    EXPECT_FALSE(is_pci_address("0000:2e:00.0/../x"));
    EXPECT_FALSE(is_pci_address("../../0:00.0"));
    EXPECT_FALSE(is_pci_address(""));
}

TEST(LinuxParse, FixedStringsAreTerminatedAndCutOnACharacter) {
    char out[8];
    std::memset(out, 'x', sizeof out);
    copy_fixed(out, "abc");
    EXPECT_STREQ(out, "abc");
    copy_fixed(out, "abcdefghijkl");
    EXPECT_STREQ(out, "abcdefg");
    copy_fixed(out, "abcdef\xc3\xa9");  // "é" would be split at byte 7: dropped whole
    EXPECT_STREQ(out, "abcdef");
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs

// Enumeration of each fixture: domains, routers and the PCI functions behind the tunnel, as
// cb_endpoint_info records.
#include "fixture_tree.hpp"
#include "sysfs_endpoints.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cudabridge::usb4::linux_sysfs {
namespace {

using test::fixture;

constexpr const char* host_uid = "9a1b8086-0000-0000-0000-000000000000";
constexpr const char* enclosure_uid = "c6030000-0062-0e1e-83bf-8d5e7f1bc021";

const cb_endpoint_info* by_id(const std::vector<cb_endpoint_info>& list, const std::string& id) {
    for (const auto& e : list)
        if (id == e.id) return &e;
    return nullptr;
}

TEST(LinuxEnumerate, NoThunderboltGivesNothing) {
    EXPECT_TRUE(enumerate_endpoints(fixture("no_thunderbolt")).empty());
    EXPECT_TRUE(enumerate_endpoints(fixture("does_not_exist")).empty());
}

TEST(LinuxEnumerate, Tb3EnclosureAuthorized) {
    const auto list = enumerate_endpoints(fixture("tb3_user_authorized"));
    ASSERT_EQ(list.size(), 5u);  // domain, host router, enclosure, GPU, GPU audio (no XDomain)
    for (const auto& e : list) {
        EXPECT_EQ(e.struct_size, sizeof(cb_endpoint_info));
        EXPECT_EQ(e.is_simulated, 0);
        EXPECT_EQ(e.domain, 0u);
        EXPECT_EQ(e.security_level, CB_SECURITY_USER);
        EXPECT_EQ(e.iommu_dma_protection, 1);
    }

    EXPECT_EQ(list[0].kind, CB_ENDPOINT_DOMAIN);
    EXPECT_STREQ(list[0].id, "domain0");
    EXPECT_STREQ(list[0].parent_id, "");

    EXPECT_EQ(list[1].kind, CB_ENDPOINT_HOST_ROUTER);
    EXPECT_STREQ(list[1].id, host_uid);
    EXPECT_STREQ(list[1].parent_id, "domain0");
    EXPECT_STREQ(list[1].name, "0-0");  // Tiger Lake host routers carry no DROM name
    EXPECT_EQ(list[1].generation, CB_LINK_USB4_V1);
    EXPECT_EQ(list[1].authorized, CB_AUTH_AUTHORIZED);

    const cb_endpoint_info& enc = list[2];
    EXPECT_EQ(enc.kind, CB_ENDPOINT_DEVICE_ROUTER);
    EXPECT_STREQ(enc.id, enclosure_uid);
    EXPECT_STREQ(enc.parent_id, host_uid);
    EXPECT_STREQ(enc.name, "Core X Chroma");
    EXPECT_STREQ(enc.vendor_name, "Razer");
    EXPECT_EQ(enc.authorized, CB_AUTH_AUTHORIZED);
    EXPECT_EQ(enc.generation, CB_LINK_TB3);
    EXPECT_EQ(enc.lanes, 2u);
    EXPECT_DOUBLE_EQ(enc.lane_speed_gbps, 20.0);

    const cb_endpoint_info& gpu = list[3];
    EXPECT_EQ(gpu.kind, CB_ENDPOINT_PCI_FUNCTION);
    EXPECT_STREQ(gpu.id, "0000:2e:00.0");
    EXPECT_STREQ(gpu.parent_id, enclosure_uid);
    EXPECT_EQ(gpu.pci_vendor_id, 0x10de);
    EXPECT_EQ(gpu.pci_device_id, 0x2684);
    EXPECT_EQ(gpu.pci_subsystem_vendor_id, 0x1043);
    EXPECT_EQ(gpu.pci_subsystem_device_id, 0x889c);
    EXPECT_EQ(gpu.pci_class_code, 0x030000u);
    EXPECT_STREQ(gpu.driver, "nvidia");
    EXPECT_STREQ(gpu.name, "VGA compatible controller [10de:2684]");
    EXPECT_STREQ(gpu.vendor_name, "NVIDIA Corporation");
    // Read at the JHL7540 upstream port: not the tunnel bridge's 2.5 GT/s x1, not the GPU's x16.
    EXPECT_EQ(gpu.pcie_link_gen, 3u);
    EXPECT_EQ(gpu.pcie_link_width, 4u);
    EXPECT_EQ(gpu.authorized, CB_AUTH_AUTHORIZED);
    EXPECT_EQ(gpu.generation, CB_LINK_TB3);

    const cb_endpoint_info& audio = list[4];
    EXPECT_STREQ(audio.id, "0000:2e:00.1");
    EXPECT_EQ(audio.pci_class_code, 0x040300u);
    EXPECT_STREQ(audio.driver, "snd_hda_intel");
    EXPECT_EQ(audio.pcie_link_gen, 3u);

    EXPECT_EQ(by_id(list, "0000:00:02.0"), nullptr);                          // the iGPU is internal
    EXPECT_EQ(by_id(list, "0000:2c:00.0"), nullptr);                          // bridges are plumbing
    EXPECT_EQ(by_id(list, "4c4c4544-0047-3510-8052-b4c04f4a4d32"), nullptr);  // XDomain peer
}

TEST(LinuxEnumerate, Tb3EnclosureNotAuthorizedHasNoPciFunctions) {
    const auto list = enumerate_endpoints(fixture("tb3_user_unauthorized"));
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[2].kind, CB_ENDPOINT_DEVICE_ROUTER);
    EXPECT_STREQ(list[2].id, enclosure_uid);
    EXPECT_EQ(list[2].authorized, CB_AUTH_NONE);
}

TEST(LinuxEnumerate, SecureLevel) {
    const auto list = enumerate_endpoints(fixture("tb3_secure"));
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[0].security_level, CB_SECURITY_SECURE);
    EXPECT_EQ(list[2].security_level, CB_SECURITY_SECURE);
    EXPECT_EQ(list[2].authorized, CB_AUTH_NONE);
}

TEST(LinuxEnumerate, DpOnlyShowsTheDeviceButNoPciFunction) {
    const auto list = enumerate_endpoints(fixture("tb3_dponly"));
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[0].security_level, CB_SECURITY_DPONLY);
    EXPECT_EQ(list[0].iommu_dma_protection, 0);
    EXPECT_STREQ(list[2].id, enclosure_uid);
    EXPECT_STREQ(list[2].name, "Core X Chroma");
    EXPECT_EQ(list[2].authorized, CB_AUTH_NONE);  // no authorized attribute at dponly
    for (const auto& e : list) EXPECT_NE(e.kind, CB_ENDPOINT_PCI_FUNCTION);
}

TEST(LinuxEnumerate, DiscreteControllerOnAnOlderKernel) {
    const auto list = enumerate_endpoints(fixture("downgraded_discrete"));
    ASSERT_EQ(list.size(), 5u);
    EXPECT_STREQ(list[1].name, "XPS 13 9380");
    EXPECT_STREQ(list[1].vendor_name, "Dell");
    EXPECT_EQ(list[1].generation, CB_LINK_TB3);
    EXPECT_STREQ(list[2].name, "AORUS Gaming Box");
    EXPECT_STREQ(list[3].id, "0000:08:00.0");
    EXPECT_STREQ(list[3].parent_id, "00e08d5e-95ef-0e00-ffff-ffffffffffff");
    EXPECT_EQ(list[3].pci_device_id, 0x1e84);
    EXPECT_EQ(list[3].pcie_link_gen, 1u);
    EXPECT_EQ(list[3].pcie_link_width, 1u);
    EXPECT_STREQ(list[4].id, "0000:08:00.1");
    // The controller's own functions are not behind a tunnel, though marked removable.
    EXPECT_EQ(by_id(list, "0000:05:00.0"), nullptr);  // NHI
    EXPECT_EQ(by_id(list, "0000:39:00.0"), nullptr);  // its xHCI
}

TEST(LinuxEnumerate, AmdHostWithoutDeviceLinks) {
    const auto list = enumerate_endpoints(fixture("aer_errors"));
    ASSERT_EQ(list.size(), 4u);
    EXPECT_STREQ(list[3].id, "0000:64:00.0");
    EXPECT_STREQ(list[3].parent_id, "e1030000-0072-780e-2386-41d4a8c1b021");
    EXPECT_EQ(list[3].pcie_link_gen, 3u);
    EXPECT_EQ(list[3].pcie_link_width, 4u);
    EXPECT_EQ(by_id(list, "0000:c4:00.5"), nullptr);
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs

// The rule for "behind the tunnel" on each kind of host, and which port the link is read at.
#include "fixture_tree.hpp"
#include "sysfs_fabric_view.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace cudabridge::usb4::linux_sysfs {
namespace {

using test::fixture;
using test::fixture_copy;

TEST(LinuxTunnelRule, DeviceLinkToTheNhi) {
    const auto view = read_fabric(fixture("tb3_user_authorized"));
    auto t = view.tunnelled("0000:2e:00.0");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tunnel.tunnel_bridge, "0000:00:07.0");
    EXPECT_EQ(t->tunnel.enclosure_port, "0000:2c:00.0");
    EXPECT_EQ(t->tunnel.nhi, "0000:00:0d.2");
    EXPECT_EQ(t->tunnel.evidence, tunnel_evidence::nhi_device_link);
    EXPECT_TRUE(t->router_certain);
    // The tunnel bridge and internal devices are not behind a tunnel.
    EXPECT_FALSE(view.tunnelled("0000:00:07.0").has_value());
    EXPECT_FALSE(view.tunnelled("0000:00:02.0").has_value());
    EXPECT_FALSE(view.tunnelled("0000:00:0d.2").has_value());
}

TEST(LinuxTunnelRule, IntegratedRootPortKnownById) {
    // Ice Lake / Tiger Lake firmware without usb4-host-interface: no device link, no removable.
    fixture_copy copy("tb3_user_authorized");
    const auto rp = copy.root() / "sys/devices/pci0000:00/0000:00:07.0";
    std::filesystem::remove(rp / "supplier:pci:0000:00:0d.2");
    for (const char* d : {"0000:2c:00.0", "0000:2c:00.0/0000:2d:01.0", "0000:2c:00.0/0000:2d:01.0/0000:2e:00.0"})
        std::filesystem::remove(rp / d / "removable");
    const auto view = read_fabric(copy.root());
    auto t = view.tunnelled("0000:2e:00.0");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tunnel.evidence, tunnel_evidence::integrated_root_port);
    EXPECT_EQ(t->tunnel.enclosure_port, "0000:2c:00.0");
}

TEST(LinuxTunnelRule, RemovableBelowAnExternalFacingPort) {
    const auto view = read_fabric(fixture("aer_errors"));
    auto t = view.tunnelled("0000:64:00.0");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tunnel.evidence, tunnel_evidence::removable);
    EXPECT_EQ(t->tunnel.tunnel_bridge, "0000:00:03.1");
    EXPECT_EQ(t->tunnel.enclosure_port, "0000:62:00.0");
    EXPECT_EQ(t->tunnel.nhi, "0000:c4:00.5");
}

TEST(LinuxTunnelRule, DiscreteControllerMarkedRemovableByAnOlderKernel) {
    const auto view = read_fabric(fixture("downgraded_discrete"));
    auto t = view.tunnelled("0000:08:00.0");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tunnel.evidence, tunnel_evidence::removable);
    EXPECT_EQ(t->tunnel.tunnel_bridge, "0000:04:01.0");
    EXPECT_EQ(t->tunnel.enclosure_port, "0000:06:00.0");
    EXPECT_EQ(t->tunnel.nhi, "0000:05:00.0");
    EXPECT_FALSE(view.tunnelled("0000:39:00.0").has_value());  // the controller's xHCI
    EXPECT_FALSE(view.tunnelled("0000:05:00.0").has_value());  // the NHI
    EXPECT_FALSE(view.tunnelled("0000:04:01.0").has_value());  // the tunnel bridge
}

TEST(LinuxTunnelRule, DiscreteControllerWithoutAnyKernelHint) {
    // Firmware without ExternalFacingPort (or a kernel before 5.12): controller topology.
    fixture_copy copy("downgraded_discrete");
    for (auto& entry : std::filesystem::recursive_directory_iterator(copy.root() / "sys/devices"))
        if (entry.path().filename() == "removable") std::filesystem::remove(entry.path());
    const auto view = read_fabric(copy.root());
    auto t = view.tunnelled("0000:08:00.0");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tunnel.evidence, tunnel_evidence::controller_topology);
    EXPECT_EQ(t->tunnel.tunnel_bridge, "0000:04:01.0");
    EXPECT_EQ(t->tunnel.enclosure_port, "0000:06:00.0");
    EXPECT_FALSE(view.tunnelled("0000:39:00.0").has_value());
}

TEST(LinuxTunnelRule, NewerKernelTrustsTheDiscreteController) {
    // Since "PCI: Detect and trust built-in Thunderbolt chips" the controller reads fixed.
    fixture_copy copy("downgraded_discrete");
    const auto base = copy.root() / "sys/devices/pci0000:00/0000:00:1c.4/0000:03:00.0";
    for (const char* d : {"", "/0000:04:00.0", "/0000:04:01.0", "/0000:04:02.0", "/0000:04:04.0",
                          "/0000:04:00.0/0000:05:00.0", "/0000:04:02.0/0000:39:00.0"}) {
        std::ofstream(base.string() + d + "/removable") << "fixed\n";
    }
    const auto view = read_fabric(copy.root());
    auto t = view.tunnelled("0000:08:00.0");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tunnel.tunnel_bridge, "0000:04:01.0");
    EXPECT_EQ(t->tunnel.enclosure_port, "0000:06:00.0");
    EXPECT_EQ(t->tunnel.nhi, "0000:05:00.0");
}

TEST(LinuxTunnelRule, SeveralAuthorizedRoutersLeaveTheRouterUncertain) {
    fixture_copy copy("tb3_user_authorized");
    // A second authorized device on port 3 (a dock): the tunnel could end in either.
    const auto dock = copy.root() / "sys/devices/pci0000:00/0000:00:0d.2/domain0/0-0/0-5";
    std::filesystem::create_directories(dock);
    std::ofstream(dock / "unique_id") << "0b000000-0000-0000-0000-00000000dock\n";
    std::ofstream(dock / "authorized") << "1\n";
    std::ofstream(dock / "generation") << "3\n";
    std::ofstream(dock / "uevent") << "DEVTYPE=thunderbolt_device\nUSB4_TYPE=device\n";
    std::filesystem::create_directory_symlink("../../../devices/pci0000:00/0000:00:0d.2/domain0/0-0/0-5",
                                              copy.root() / "sys/bus/thunderbolt/devices/0-5");
    const auto view = read_fabric(copy.root());
    auto t = view.tunnelled("0000:2e:00.0");
    ASSERT_TRUE(t.has_value());
    EXPECT_FALSE(t->router_certain);
    ASSERT_NE(t->router, nullptr);
    EXPECT_TRUE(t->router->is_host());
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs

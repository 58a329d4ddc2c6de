// Link figures at the enclosure's upstream port, the downgraded flag, and AER at both ends.
#include "fixture_tree.hpp"
#include "sysfs_link_report.hpp"

#include <gtest/gtest.h>

namespace cudabridge::usb4::linux_sysfs {
namespace {

using test::fixture;

TEST(LinuxLinkReport, ReadAtTheEnclosurePortNotTheTunnelBridge) {
    pci_link_report r;
    std::string error;
    ASSERT_EQ(read_link_report(fixture("tb3_user_authorized"), "0000:2e:00.0", r, error), CB_OK) << error;
    EXPECT_EQ(r.port, "0000:2c:00.0");
    EXPECT_EQ(r.tunnel_bridge, "0000:00:07.0");
    EXPECT_EQ(r.current_gen, 3u);
    EXPECT_EQ(r.current_width, 4u);
    EXPECT_EQ(r.max_gen, 3u);
    EXPECT_EQ(r.max_width, 4u);
    EXPECT_DOUBLE_EQ(r.current_speed_gts, 8.0);
    // The GPU's own link reads below its max (x4 of x16), the port's does not.
    EXPECT_FALSE(r.downgraded);
    EXPECT_TRUE(r.function_link.downgraded());
    EXPECT_TRUE(r.port_aer.available);
    EXPECT_EQ(r.port_aer.correctable, 0u);
    EXPECT_EQ(r.function_aer.correctable, 0u);
}

TEST(LinuxLinkReport, DowngradedLink) {
    pci_link_report r;
    std::string error;
    ASSERT_EQ(read_link_report(fixture("downgraded_discrete"), "0000:08:00.0", r, error), CB_OK) << error;
    EXPECT_EQ(r.port, "0000:06:00.0");
    EXPECT_EQ(r.current_gen, 1u);
    EXPECT_EQ(r.current_width, 1u);
    EXPECT_EQ(r.max_gen, 3u);
    EXPECT_EQ(r.max_width, 4u);
    EXPECT_TRUE(r.downgraded);
}

TEST(LinuxLinkReport, AerCountersAtBothEnds) {
    pci_link_report r;
    std::string error;
    ASSERT_EQ(read_link_report(fixture("aer_errors"), "0000:64:00.0", r, error), CB_OK) << error;
    EXPECT_EQ(r.port, "0000:62:00.0");
    EXPECT_TRUE(r.port_aer.available);
    EXPECT_EQ(r.port_aer.correctable, 21u);  // TOTAL_ERR_COR, not the 20 the lines add up to
    EXPECT_EQ(r.port_aer.nonfatal, 1u);
    EXPECT_EQ(r.port_aer.fatal, 0u);
    EXPECT_TRUE(r.function_aer.available);
    EXPECT_EQ(r.function_aer.correctable, 4u);
    EXPECT_EQ(r.function_aer.nonfatal, 2u);
    EXPECT_EQ(r.function_aer.fatal, 0u);
    EXPECT_EQ(r.function_aer.uncorrectable(), 2u);
    EXPECT_FALSE(r.downgraded);
}

TEST(LinuxLinkReport, Refusals) {
    pci_link_report r;
    std::string error;
    EXPECT_EQ(read_link_report(fixture("tb3_user_authorized"), "0000:00:02.0", r, error),
              CB_ERR_INVALID_ARGUMENT);  // internal iGPU
    EXPECT_NE(error.find("not behind"), std::string::npos) << error;
    EXPECT_EQ(read_link_report(fixture("tb3_user_authorized"), "0000:99:00.0", r, error), CB_ERR_NOT_FOUND);
    EXPECT_EQ(read_link_report(fixture("tb3_user_authorized"), "../../etc", r, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(read_link_report(fixture("no_thunderbolt"), "0000:01:00.0", r, error), CB_ERR_NOT_FOUND);
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs

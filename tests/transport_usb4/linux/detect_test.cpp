// Backend choice input: is there a Thunderbolt / USB4 domain, and the sentence saying why.
#include "fixture_tree.hpp"
#include "sysfs_detect.hpp"

#include <gtest/gtest.h>

namespace cudabridge::usb4::linux_sysfs {
namespace {

using test::fixture;

TEST(LinuxDetect, NoThunderboltAtAll) {
    std::string why;
    EXPECT_FALSE(has_thunderbolt(fixture("no_thunderbolt"), why));
    EXPECT_EQ(why.rfind("no /sys/bus/thunderbolt", 0), 0u) << why;
}

TEST(LinuxDetect, BusWithoutDomain) {
    cudabridge::test::temp_dir dir;
    std::filesystem::create_directories(dir / "sys/bus/thunderbolt/devices");
    std::string why;
    EXPECT_FALSE(has_thunderbolt(dir.path(), why));
    EXPECT_NE(why.find("has no domain"), std::string::npos) << why;
}

TEST(LinuxDetect, DomainAndItsSecurityLevel) {
    std::string why;
    EXPECT_TRUE(has_thunderbolt(fixture("tb3_user_authorized"), why));
    EXPECT_EQ(why.rfind("domain0 (security user)", 0), 0u) << why;
    EXPECT_TRUE(has_thunderbolt(fixture("tb3_secure"), why));
    EXPECT_EQ(why.rfind("domain0 (security secure)", 0), 0u) << why;
    EXPECT_TRUE(has_thunderbolt(fixture("tb3_dponly"), why));
    EXPECT_EQ(why.rfind("domain0 (security dponly)", 0), 0u) << why;
}

TEST(LinuxDetect, RealRootNamesNoRoot) {
    // On the real root the sentence carries no "(sysfs root ...)" suffix; this machine may or
    // may not have Thunderbolt, so only the shape is checked.
    std::string why;
    has_thunderbolt("/", why);
    EXPECT_EQ(why.find("sysfs root"), std::string::npos) << why;
    EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs

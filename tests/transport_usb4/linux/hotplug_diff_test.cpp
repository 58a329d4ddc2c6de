// Hot-plug events from comparing two enumerations.
#include "fixture_tree.hpp"
#include "sysfs_endpoints.hpp"
#include "sysfs_hotplug_diff.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace cudabridge::usb4::linux_sysfs {
namespace {

using test::fixture;

constexpr const char* enclosure_uid = "c6030000-0062-0e1e-83bf-8d5e7f1bc021";

TEST(LinuxHotplugDiff, SameFabricGivesNoEvent) {
    const auto a = enumerate_endpoints(fixture("tb3_user_authorized"));
    EXPECT_TRUE(diff_endpoints(a, a).empty());
}

TEST(LinuxHotplugDiff, PluggedFromNothing) {
    const auto none = enumerate_endpoints(fixture("no_thunderbolt"));
    const auto after = enumerate_endpoints(fixture("tb3_user_unauthorized"));
    const auto events = diff_endpoints(none, after);
    ASSERT_EQ(events.size(), 3u);
    for (const auto& e : events) {
        EXPECT_EQ(e.type, CB_TRANSPORT_PLUGGED);
        EXPECT_EQ(e.struct_size, sizeof(cb_transport_event));
    }
    EXPECT_STREQ(events[2].endpoint_id, enclosure_uid);
    EXPECT_STREQ(events[2].message, "plugged: device c6030000-0062-0e1e-83bf-8d5e7f1bc021 (Razer Core X Chroma)");
}

TEST(LinuxHotplugDiff, AuthorizationBringsTheGpu) {
    const auto before = enumerate_endpoints(fixture("tb3_user_unauthorized"));
    const auto after = enumerate_endpoints(fixture("tb3_user_authorized"));
    const auto events = diff_endpoints(before, after);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].type, CB_TRANSPORT_AUTHORIZED);
    EXPECT_STREQ(events[0].endpoint_id, enclosure_uid);
    EXPECT_EQ(events[1].type, CB_TRANSPORT_PLUGGED);
    EXPECT_STREQ(events[1].endpoint_id, "0000:2e:00.0");
    EXPECT_STREQ(events[1].message, "plugged: PCI function 0000:2e:00.0 (VGA compatible controller [10de:2684])");
    EXPECT_EQ(events[2].type, CB_TRANSPORT_PLUGGED);
    EXPECT_STREQ(events[2].endpoint_id, "0000:2e:00.1");
}

TEST(LinuxHotplugDiff, UnplugAndDeauthorize) {
    const auto before = enumerate_endpoints(fixture("tb3_user_authorized"));
    const auto deauthorized = enumerate_endpoints(fixture("tb3_user_unauthorized"));
    auto events = diff_endpoints(before, deauthorized);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].type, CB_TRANSPORT_UNPLUGGED);
    EXPECT_STREQ(events[0].endpoint_id, "0000:2e:00.0");
    EXPECT_EQ(events[1].type, CB_TRANSPORT_UNPLUGGED);
    EXPECT_EQ(events[2].type, CB_TRANSPORT_DEAUTHORIZED);

    events = diff_endpoints(before, enumerate_endpoints(fixture("no_thunderbolt")));
    ASSERT_EQ(events.size(), 5u);
    for (const auto& e : events) EXPECT_EQ(e.type, CB_TRANSPORT_UNPLUGGED);
    EXPECT_STREQ(events[0].endpoint_id, "domain0");
}

TEST(LinuxHotplugDiff, LinkDowntraining) {
    auto before = enumerate_endpoints(fixture("tb3_user_authorized"));
    auto after = before;
    after[3].pcie_link_gen = 1;
    after[3].pcie_link_width = 1;
    const auto events = diff_endpoints(before, after);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].type, CB_TRANSPORT_LINK_ERROR);
    EXPECT_STREQ(events[0].endpoint_id, "0000:2e:00.0");
    EXPECT_NE(std::strstr(events[0].message, "from Gen3 x4 to Gen1 x1"), nullptr) << events[0].message;
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs

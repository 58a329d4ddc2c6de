// The fabric layout round-trips through JSON and refuses malformed layouts with the field named.
#include "sim/fabric_layout.hpp"

#include <gtest/gtest.h>

namespace cudabridge::usb4 {
namespace {

TEST(fabric_layout, DefaultIsTheSeedsSetup) {
    auto l = default_layout();
    EXPECT_EQ(l.host, host_kind::apple_silicon);
    ASSERT_EQ(l.enclosures.size(), 1u);
    EXPECT_EQ(l.enclosures[0].generation, "tb4");
    EXPECT_EQ(l.enclosures[0].gpu_model, "rtx-5090");
    EXPECT_EQ(l.enclosures[0].gpu_vendor_id, 0x10de);
    EXPECT_EQ(l.enclosures[0].authorized, CB_AUTH_NONE);
}

TEST(fabric_layout, JsonRoundTrip) {
    auto l = default_layout();
    l.host = host_kind::x86;
    l.domains[0].security = CB_SECURITY_SECURE;
    l.enclosures[0].key_hex = std::string(64, 'a');
    l.enclosures[0].authorized = CB_AUTH_SECURE;
    l.enclosures[0].plugged = false;
    std::string error;
    auto back = layout_from_json(to_json(l), error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->host, host_kind::x86);
    EXPECT_EQ(back->domains[0].security, CB_SECURITY_SECURE);
    EXPECT_EQ(back->enclosures[0].key_hex, l.enclosures[0].key_hex);
    EXPECT_EQ(back->enclosures[0].authorized, CB_AUTH_SECURE);
    EXPECT_FALSE(back->enclosures[0].plugged);
    EXPECT_EQ(back->enclosures[0].gpu_device_id, 0x2b85);
    EXPECT_EQ(to_json(*back), to_json(l));
}

TEST(fabric_layout, MalformedLayoutsNameTheField) {
    struct bad {
        const char* json;
        const char* says;
    };
    const bad cases[] = {
        {"not json", "not a fabric layout"},
        {R"({"host":"vax","domains":[]})", "host must be"},
        {R"({"domains":[{"security":"paranoid"}]})", "domains[0].security"},
        {R"({"domains":[{}],"enclosures":[{"name":"x"}]})", "enclosures[0].id is missing"},
        {R"({"domains":[{}],"enclosures":[{"id":"a","domain":3}]})", "domain 3 does not exist"},
        {R"({"domains":[{}],"enclosures":[{"id":"a","key":"abc"}]})", "64 hex digits"},
        {R"({"domains":[{}],"enclosures":[{"id":"a","authorized":7}]})", "authorized must be"},
        {R"({"domains":[{}],"enclosures":[{"id":"a"},{"id":"a"}]})", "used twice"},
    };
    for (const auto& c : cases) {
        std::string error;
        EXPECT_FALSE(layout_from_json(c.json, error)) << c.json;
        EXPECT_NE(error.find(c.says), std::string::npos) << c.json << " -> " << error;
    }
}

TEST(fabric_layout, SecurityNames) {
    for (int i = 0; i <= CB_SECURITY_NOPCIE; ++i) EXPECT_EQ(parse_security(security_key(i)), i);
    EXPECT_FALSE(parse_security("strict"));
}

}  // namespace
}  // namespace cudabridge::usb4

// Every test-plugin variant gets its documented outcome and reason from verify_plugin_file.
#include "registry_fixture.hpp"

namespace cudabridge::test {
namespace {

struct expectation {
    const char* variant;
    bool ok;
    const char* reason_contains;  // for refused variants
};

class verify_variant : public ::testing::TestWithParam<expectation> {};

TEST_P(verify_variant, OutcomeAndReason) {
    const auto& e = GetParam();
    core::verify_report r = core::verify_plugin_file(variant_file(e.variant));
    EXPECT_EQ(r.ok, e.ok) << r.reason;
    if (!e.ok) {
        EXPECT_NE(r.reason.find(e.reason_contains), std::string::npos) << "reason: " << r.reason;
        bool some_failed = false;
        for (const auto& c : r.checks) some_failed |= !c.passed;
        EXPECT_TRUE(some_failed);
        EXPECT_TRUE(r.plugins.empty());
    } else {
        EXPECT_FALSE(r.plugins.empty());
        for (const auto& c : r.checks) EXPECT_TRUE(c.passed) << c.name << ": " << c.detail;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, verify_variant,
    ::testing::Values(expectation{"good", true, ""}, expectation{"older_minor", true, ""},
                      expectation{"newer_minor", true, ""}, expectation{"wrong_major", false, "major must match"},
                      expectation{"small_struct", false, "smaller than the ABI 1.0 descriptor"},
                      expectation{"missing_entry", false, "missing required entry: write"},
                      expectation{"create_fails", true, ""}, expectation{"create_throws", true, ""},
                      expectation{"no_entry", false, "does not export cb_plugin_entry"},
                      expectation{"not_a_library", false, "is not an ELF file"}, expectation{"multi", true, ""}),
    [](const auto& test_param) { return std::string(test_param.param.variant); });

TEST(verify, MinorVersionNotesSayWhatTheHostDoes) {
    auto older = core::verify_plugin_file(variant_file("older_minor"));
    auto newer = core::verify_plugin_file(variant_file("newer_minor"));
    auto note = [](const core::verify_report& r) {
        for (const auto& c : r.checks)
            if (c.name == "ABI minor") return c.detail;
        return std::string();
    };
    EXPECT_NE(note(older).find("older than host"), std::string::npos);
    EXPECT_NE(note(newer).find("newer than host"), std::string::npos);
}

TEST(verify, MultiCarriesTwoPlugins) {
    auto r = core::verify_plugin_file(variant_file("multi"));
    ASSERT_EQ(r.plugins.size(), 2u);
    EXPECT_EQ(r.plugins[0].name, "multi_a");
    EXPECT_EQ(r.plugins[1].name, "multi_b");
}

TEST(verify, MissingFileIsRefusedNotThrown) {
    auto r = core::verify_plugin_file("/nonexistent/libnothing.so");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("cannot resolve"), std::string::npos);
}

}  // namespace
}  // namespace cudabridge::test

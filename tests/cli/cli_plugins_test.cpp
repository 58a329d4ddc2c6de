// `plugins list | info | verify` through the real binary.
#include "cli_fixture.hpp"

#include <set>

namespace cudabridge::test {
namespace {

std::string variant_dir(const std::string& v) { return std::string(CB_TEST_BUILD_DIR) + "/test-plugins/" + v; }
std::string variant_file(const std::string& v) { return variant_dir(v) + "/lib" + v + ".so"; }

TEST_F(cli_test, PluginsListShowsTheLoggingSinksAndASecondRunLoadsNothing) {
    auto first = run({"plugins", "list", "--json"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    auto o = object(first.out);
    std::set<std::string> names;
    auto plugins = o->getArray("plugins");
    for (size_t i = 0; i < plugins->size(); ++i) {
        auto p = plugins->getObject(static_cast<unsigned>(i));
        if (p->getValue<std::string>("kind") == "logsink") names.insert(p->getValue<std::string>("name"));
    }
    for (const char* sink : {"console", "file", "sqlite", "jsonl", "syslog"}) EXPECT_TRUE(names.count(sink)) << sink;
    EXPECT_GE(o->getObject("scan")->getValue<int>("libraries_loaded"), 1);

    auto second = run({"plugins", "list", "--json"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    auto scan = object(second.out)->getObject("scan");
    EXPECT_EQ(scan->getValue<int>("libraries_loaded"), 0);
    EXPECT_EQ(scan->getValue<int>("from_cache"), scan->getValue<int>("files"));
}

TEST_F(cli_test, PluginsListTextAndRefusedFiles) {
    auto r = run({"--plugin-path", variant_dir("wrong_major"), "plugins", "list"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("console"), std::string::npos);
    EXPECT_NE(r.out.find("refused:"), std::string::npos);
    EXPECT_NE(r.out.find("major must match"), std::string::npos);
}

TEST_F(cli_test, PluginsInfo) {
    auto r = run({"plugins", "info", "file", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto p = object(r.out)->getArray("plugins")->getObject(0);
    EXPECT_EQ(p->getValue<std::string>("kind"), "logsink");
    EXPECT_EQ(run({"plugins", "info", "nosuch"}).exit_code, 1);
    EXPECT_EQ(run({"plugins", "info"}).exit_code, 2);
}

struct verify_case {
    const char* variant;
    int exit_code;
    const char* reason;
};

TEST_F(cli_test, PluginsVerifyNamesTheReasonForEachBadVariant) {
    const verify_case cases[] = {
        {"good", 0, ""},
        {"older_minor", 0, ""},
        {"newer_minor", 0, ""},
        {"wrong_major", 1, "major must match"},
        {"small_struct", 1, "smaller than the ABI 1.0 descriptor"},
        {"missing_entry", 1, "missing required entry: write"},
        {"no_entry", 1, "does not export cb_plugin_entry"},
        {"not_a_library", 1, "is not an ELF file"},
    };
    for (const auto& c : cases) {
        auto text = run({"plugins", "verify", variant_file(c.variant)});
        EXPECT_EQ(text.exit_code, c.exit_code) << c.variant << "\n" << text.out << text.err;
        EXPECT_NE(text.out.find(c.exit_code == 0 ? "OK:" : "REFUSED:"), std::string::npos) << c.variant;
        auto json = run({"plugins", "verify", "--json", variant_file(c.variant)});
        EXPECT_EQ(json.exit_code, c.exit_code) << c.variant;
        auto o = object(json.out);
        EXPECT_EQ(o->getValue<bool>("ok"), c.exit_code == 0);
        if (c.exit_code != 0) {
            EXPECT_NE(o->getValue<std::string>("reason").find(c.reason), std::string::npos)
                << c.variant << ": " << o->getValue<std::string>("reason");
            EXPECT_NE(text.out.find(c.reason), std::string::npos) << c.variant;
        }
        EXPECT_GT(o->getArray("checks")->size(), 0u);
    }
}

}  // namespace
}  // namespace cudabridge::test

// Search order, environment overrides, the privilege rule and the permission rule.
#include "registry_fixture.hpp"

#include <sys/stat.h>

namespace cudabridge::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::vector<core::search_entry>& s, const fs::path& p) {
    for (const auto& e : s)
        if (e.path == p) return true;
    return false;
}

TEST_F(registry_test, DefaultOrderIsExtraThenUserThenInstalled) {
    core::search_options o;
    o.extra_paths = {"/opt/extra"};
    o.privileged = false;
    o.installed_dir = "/opt/installed";
    auto s = core::plugin_search_path(o);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].path, "/opt/extra");
    EXPECT_EQ(s[1].origin, "user");
    EXPECT_EQ(s[1].path, fs::path(tmp / "data") / "cudabridge" / "plugins");
    EXPECT_EQ(s[2].path, "/opt/installed");
}

TEST_F(registry_test, PluginPathReplacesAndAddPrepends) {
    setenv("CUDABRIDGE_PLUGIN_PATH", "/a:/b", 1);
    setenv("CUDABRIDGE_ADD_PLUGIN_PATH", "/first", 1);
    core::search_options o;
    o.privileged = false;
    o.installed_dir = "/opt/installed";
    auto s = core::plugin_search_path(o);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].path, "/first");
    EXPECT_EQ(s[1].path, "/a");
    EXPECT_EQ(s[2].path, "/b");
    EXPECT_FALSE(contains(s, "/opt/installed"));
    unsetenv("CUDABRIDGE_PLUGIN_PATH");
    s = core::plugin_search_path(o);
    EXPECT_EQ(s.front().path, "/first");
    EXPECT_TRUE(contains(s, "/opt/installed"));
    unsetenv("CUDABRIDGE_ADD_PLUGIN_PATH");
}

TEST_F(registry_test, PrivilegedProcessIgnoresEnvironmentAndUserFolder) {
    setenv("CUDABRIDGE_PLUGIN_PATH", "/evil", 1);
    setenv("CUDABRIDGE_ADD_PLUGIN_PATH", "/evil2", 1);
    core::search_options o;
    o.privileged = true;
    o.installed_dir = "/opt/installed";
    auto s = core::plugin_search_path(o);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].path, "/opt/installed");
    unsetenv("CUDABRIDGE_PLUGIN_PATH");
    unsetenv("CUDABRIDGE_ADD_PLUGIN_PATH");
}

TEST_F(registry_test, EnvironmentPathIsScanned) {
    setenv("CUDABRIDGE_PLUGIN_PATH", variant_dir("good").c_str(), 1);
    core::search_options o;
    o.privileged = false;
    core::registry reg(*db, o);
    reg.scan();
    unsetenv("CUDABRIDGE_PLUGIN_PATH");
    ASSERT_TRUE(reg.find(CB_KIND_LOGSINK, "testsink"));
}

TEST_F(registry_test, WorldWritableFileAndFolderAreRefused) {
    fs::create_directories(tmp / "ww_file");
    fs::copy_file(variant_file("good"), tmp / "ww_file" / "libgood.so");
    chmod((tmp / "ww_file" / "libgood.so").c_str(), 0666);
    fs::create_directories(tmp / "ww_dir");
    fs::copy_file(variant_file("good"), tmp / "ww_dir" / "libgood.so");
    chmod((tmp / "ww_dir").c_str(), 0777);

    core::registry reg(*db, only({tmp / "ww_file", tmp / "ww_dir"}));
    reg.scan();
    ASSERT_EQ(reg.files().size(), 2u);
    EXPECT_FALSE(reg.files()[0].ok);
    EXPECT_NE(reg.files()[0].reason.find("world-writable file"), std::string::npos);
    EXPECT_FALSE(reg.files()[1].ok);
    EXPECT_NE(reg.files()[1].reason.find("world-writable folder"), std::string::npos);
    EXPECT_FALSE(reg.find(CB_KIND_LOGSINK, "testsink"));
    EXPECT_EQ(reg.libraries_loaded(), 0u);  // refused before anything was loaded
}

TEST_F(registry_test, OnlyLibFilesAreConsidered) {
    fs::create_directories(tmp / "mixed");
    fs::copy_file(variant_file("good"), tmp / "mixed" / "libgood.so");
    std::FILE* f = std::fopen((tmp / "mixed" / "README.txt").c_str(), "w");
    std::fputs("not a plugin", f);
    std::fclose(f);
    core::registry reg(*db, only({tmp / "mixed"}));
    reg.scan();
    EXPECT_EQ(reg.files().size(), 1u);
}

TEST_F(registry_test, BadVariantsNeverStopTheScan) {
    std::vector<fs::path> all;
    for (const char* v : {"wrong_major", "small_struct", "missing_entry", "no_entry", "not_a_library", "good",
                          "create_throws", "create_fails", "multi"})
        all.push_back(variant_dir(v));
    core::registry reg(*db, only(all));
    EXPECT_NO_THROW(reg.scan());
    EXPECT_TRUE(reg.find(CB_KIND_LOGSINK, "testsink"));
    EXPECT_TRUE(reg.find(CB_KIND_LOGSINK, "multi_b"));
    size_t refused = 0;
    for (const auto& f : reg.files()) refused += f.ok ? 0 : 1;
    EXPECT_EQ(refused, 5u);
}

TEST_F(registry_test, HighestVersionWinsUnlessPinned) {
    core::registry reg(*db, only({variant_dir("dup_both")}));
    reg.scan();
    auto w = reg.find(CB_KIND_LOGSINK, "dupsink");
    ASSERT_TRUE(w);
    EXPECT_EQ(w->version, CB_MAKE_VERSION(2, 0, 0));
    size_t shadowed = 0;
    for (const auto& p : reg.all_plugins()) shadowed += p.shadowed_by.empty() ? 0 : 1;
    EXPECT_EQ(shadowed, 1u);

    // A file named on the path pins its plugins over a higher version.
    core::registry pinned(*db, only({variant_file("dup_v1"), variant_dir("dup_both")}));
    pinned.scan();
    w = pinned.find(CB_KIND_LOGSINK, "dupsink");
    ASSERT_TRUE(w);
    EXPECT_EQ(w->version, CB_MAKE_VERSION(1, 0, 0));
    EXPECT_TRUE(w->pinned);
}

}  // namespace
}  // namespace cudabridge::test

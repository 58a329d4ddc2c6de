// A plugin file is checked before any of its code runs: its ELF headers and dynamic symbols,
// that it is whole, the folders above it, and its SHA-256 in the descriptor cache.
#include "read_file.hpp"
#include "registry_fixture.hpp"

#include <cstdio>
#include <fstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudabridge::test {
namespace {

namespace fs = std::filesystem;

std::string check_detail(const core::verify_report& r, const std::string& name) {
    for (const auto& c : r.checks)
        if (c.name == name) return c.detail;
    return {};
}

bool loaded(const core::verify_report& r) { return !check_detail(r, "load").empty(); }

TEST_F(registry_test, ALibraryWithoutTheEntryPointIsNeverLoaded) {
    // Its constructor ran during `plugins list` and `plugins verify`: a marker proved it.
    const fs::path marker = tmp / "constructor-ran";
    setenv("CB_TEST_CONSTRUCTOR_MARKER", marker.c_str(), 1);
    const auto r = core::verify_plugin_file(variant_file("no_entry"));
    core::registry reg(*db, only({variant_dir("no_entry")}));
    reg.scan();
    unsetenv("CB_TEST_CONSTRUCTOR_MARKER");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("does not export cb_plugin_entry"), std::string::npos) << r.reason;
    EXPECT_FALSE(loaded(r));
    EXPECT_FALSE(fs::exists(marker)) << "the library was loaded";
    ASSERT_EQ(reg.files().size(), 1u);
    EXPECT_FALSE(reg.files()[0].ok);
}

TEST_F(registry_test, ATruncatedCopyIsRefusedWithoutLoadingIt) {
    // A 4 KiB copy crashed every command that searched its folder (SIGBUS); a half-length copy
    // passed verify and replaced the built-in plugin.
    const auto whole = fs::file_size(variant_file("good"));
    for (const uint64_t keep : {uint64_t{4096}, whole / 2, whole - 1}) {
        SCOPED_TRACE(keep);
        const fs::path dir = tmp / ("cut" + std::to_string(keep));
        fs::create_directories(dir);
        const fs::path lib = dir / "libgood.so";
        fs::copy_file(variant_file("good"), lib);
        fs::resize_file(lib, keep);
        const auto r = core::verify_plugin_file(lib);
        EXPECT_FALSE(r.ok);
        EXPECT_FALSE(loaded(r));
        EXPECT_FALSE(check_detail(r, "ELF").empty()) << r.reason;
        core::registry reg(*db, only({dir}));
        reg.scan();
        EXPECT_FALSE(reg.find(CB_KIND_LOGSINK, "testsink"));
    }
}

TEST_F(registry_test, AWholeCopyPassesTheElfChecks) {
    const auto r = core::verify_plugin_file(variant_file("good"));
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_NE(check_detail(r, "ELF").find("exports cb_plugin_entry"), std::string::npos);
}

TEST_F(registry_test, AFolderAboveThePluginThatOthersCanWriteIsRefused) {
    // A 755 folder inside a 777 one was accepted: whoever writes the 777 one can swap the 755.
    const fs::path open = tmp / "open", inner = open / "inner";
    fs::create_directories(inner);
    fs::copy_file(variant_file("good"), inner / "libgood.so");
    ::chmod(open.c_str(), 0777);
    ::chmod(inner.c_str(), 0755);
    auto r = core::verify_plugin_file(inner / "libgood.so");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("world-writable folder " + open.string()), std::string::npos) << r.reason;
    // With the sticky bit (as /tmp), others cannot rename what they do not own: accepted.
    ::chmod(open.c_str(), 01777);
    r = core::verify_plugin_file(inner / "libgood.so");
    EXPECT_TRUE(r.ok) << r.reason;
}

// Item 6 of the second reliability round: these three were loaded into root. The rule is one for
// the file and every folder above it: owned by this user or root, writable by no one else (group
// write only for root's group).
TEST_F(registry_test, AFolderOrFileAnotherUserOrGroupCanWriteIsRefused) {
    if (::geteuid() != 0) GTEST_SKIP() << "changing owners needs root";
    const gid_t other_group = 100;   // users
    const uid_t other_user = 65534;  // nobody
    const fs::path dir = tmp / "shared", lib = dir / "libgood.so";
    fs::create_directories(dir);
    fs::copy_file(variant_file("good"), lib);

    ASSERT_EQ(::chown(dir.c_str(), 0, other_group), 0);
    ::chmod(dir.c_str(), 0775);
    auto r = core::verify_plugin_file(lib);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("is writable by group 100"), std::string::npos) << r.reason;
    ::chmod(dir.c_str(), 0755);
    EXPECT_TRUE(core::verify_plugin_file(lib).ok) << "the group may own it, not write it";

    ASSERT_EQ(::chown(lib.c_str(), 0, other_group), 0);
    ::chmod(lib.c_str(), 0664);
    r = core::verify_plugin_file(lib);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("group-writable file"), std::string::npos) << r.reason;
    ::chmod(lib.c_str(), 0644);

    ASSERT_EQ(::chown(lib.c_str(), other_user, 0), 0);
    r = core::verify_plugin_file(lib);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("belongs to another user"), std::string::npos) << r.reason;
    ASSERT_EQ(::chown(lib.c_str(), 0, 0), 0);
    EXPECT_TRUE(core::verify_plugin_file(lib).ok);
}

TEST_F(registry_test, TheCacheKeepsTheFilesSha256) {
    fs::create_directories(tmp / "p");
    const fs::path lib = tmp / "p" / "libgood.so";
    fs::copy_file(variant_file("good"), lib);
    core::registry(*db, only({tmp / "p"})).scan();
    const auto rows = core::list_plugin_cache(*db);
    ASSERT_EQ(rows.size(), 1u);
    // sha256sum computes the reference independently.
    const auto sum = run_process("/usr/bin/sha256sum", {lib.string()}, {});
    ASSERT_EQ(sum.exit_code, 0) << sum.err;
    EXPECT_EQ(rows[0].sha256, sum.out.substr(0, 64));
}

TEST_F(registry_test, AFileRewrittenWithItsOldMtimeIsCheckedAgain) {
    // Size and mtime can be put back (touch -r); the change time cannot.
    fs::create_directories(tmp / "p");
    const fs::path lib = tmp / "p" / "libgood.so";
    fs::copy_file(variant_file("good"), lib);
    core::registry(*db, only({tmp / "p"})).scan();
    struct stat before {};
    ASSERT_EQ(::stat(lib.c_str(), &before), 0);
    const std::string bytes = read_file(lib.string());
    std::ofstream(lib, std::ios::binary | std::ios::trunc) << bytes;
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, lib.c_str(), times, 0), 0);
    core::registry again(*db, only({tmp / "p"}));
    again.scan();
    EXPECT_EQ(again.libraries_loaded(), 1u);
    EXPECT_FALSE(again.files().at(0).from_cache);
}

}  // namespace
}  // namespace cudabridge::test

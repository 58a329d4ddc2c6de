// The descriptor cache: a second scan loads nothing; a changed file is checked again; a refused
// file is remembered with its reason until it changes.
#include "registry_fixture.hpp"

#include <fstream>
#include <sys/stat.h>
#include <sys/time.h>

namespace cudabridge::test {
namespace {

namespace fs = std::filesystem;

void bump_mtime(const fs::path& p) {
    struct timeval times[2];
    gettimeofday(&times[0], nullptr);
    times[0].tv_sec += 10;
    times[1] = times[0];
    utimes(p.c_str(), times);
}

TEST_F(registry_test, SecondScanAnswersFromTheCache) {
    fs::create_directories(tmp / "p");
    fs::copy_file(variant_file("good"), tmp / "p" / "libgood.so");
    {
        core::registry first(*db, only({tmp / "p"}));
        first.scan();
        EXPECT_EQ(first.libraries_loaded(), 1u);
        EXPECT_FALSE(first.files().at(0).from_cache);
    }
    core::registry second(*db, only({tmp / "p"}));
    second.scan();
    EXPECT_EQ(second.libraries_loaded(), 0u);
    ASSERT_EQ(second.files().size(), 1u);
    EXPECT_TRUE(second.files()[0].from_cache);
    auto p = second.find(CB_KIND_LOGSINK, "testsink");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->version, CB_MAKE_VERSION(1, 0, 0));
    EXPECT_EQ(core::list_plugin_cache(*db).size(), 1u);
}

TEST_F(registry_test, ChangedFileIsCheckedAgain) {
    fs::create_directories(tmp / "p");
    const fs::path lib = tmp / "p" / "libgood.so";
    fs::copy_file(variant_file("good"), lib);
    core::registry(*db, only({tmp / "p"})).scan();
    bump_mtime(lib);
    core::registry again(*db, only({tmp / "p"}));
    again.scan();
    EXPECT_EQ(again.libraries_loaded(), 1u);
    EXPECT_FALSE(again.files().at(0).from_cache);
}

TEST_F(registry_test, RefusalIsRememberedUntilTheFileChanges) {
    fs::create_directories(tmp / "p");
    const fs::path lib = tmp / "p" / "libbad.so";
    fs::copy_file(variant_file("wrong_major"), lib);
    {
        core::registry first(*db, only({tmp / "p"}));
        first.scan();
        EXPECT_EQ(first.libraries_loaded(), 1u);
        EXPECT_FALSE(first.files().at(0).ok);
    }
    core::event_query eq;
    eq.kind = "plugin_refused";
    auto events = core::query_events(*db, eq);
    ASSERT_EQ(events.size(), 1u);  // recorded once, when it was checked, not on every scan
    EXPECT_NE(events[0].message.find("major"), std::string::npos);
    auto row = core::find_plugin_cache(*db, fs::canonical(lib).string());
    ASSERT_TRUE(row);
    EXPECT_EQ(row->state, "refused");
    EXPECT_NE(row->reason.find("major"), std::string::npos);

    core::registry second(*db, only({tmp / "p"}));
    second.scan();
    EXPECT_EQ(second.libraries_loaded(), 0u);
    EXPECT_TRUE(second.files().at(0).from_cache);
    EXPECT_NE(second.files().at(0).reason.find("remembered until the file changes"), std::string::npos);
    EXPECT_EQ(core::query_events(*db, eq).size(), 1u);

    // Replace the file with a good one: checked again and accepted.
    fs::copy_file(variant_file("good"), lib, fs::copy_options::overwrite_existing);
    bump_mtime(lib);
    core::registry third(*db, only({tmp / "p"}));
    third.scan();
    EXPECT_EQ(third.libraries_loaded(), 1u);
    EXPECT_TRUE(third.files().at(0).ok);
}

}  // namespace
}  // namespace cudabridge::test

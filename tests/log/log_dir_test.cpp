// Where the file sinks write by default: the seed's shared /tmp folder only while it is this
// user's own, else the per-user state folder (a hostile user could have created the /tmp one).
#include <cudabridge/core/paths.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace cudabridge::test {
namespace {

namespace fs = std::filesystem;

class log_dir_test : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/cb_log_dir_XXXXXX";
        root = mkdtemp(pattern);
        seed = root / "cudabridge_logs";
        per_user = root / "state" / "cudabridge" / "logs";
    }
    void TearDown() override { fs::remove_all(root); }
    fs::path root, seed, per_user;
};

TEST_F(log_dir_test, AnAbsentSeedFolderIsCreatedAndUsed) {
    const auto c = core::choose_log_dir(seed, per_user);
    EXPECT_EQ(c.dir, seed) << c.why;
    EXPECT_TRUE(fs::is_directory(seed));
}

TEST_F(log_dir_test, OurOwnPrivateSeedFolderIsUsed) {
    ASSERT_EQ(::mkdir(seed.c_str(), 0700), 0);
    EXPECT_EQ(core::choose_log_dir(seed, per_user).dir, seed);
}

TEST_F(log_dir_test, OurOwnSeedFolderOthersCouldReadIsMadePrivate) {
    ASSERT_EQ(::mkdir(seed.c_str(), 0755), 0);  // as an older release made it
    EXPECT_EQ(core::choose_log_dir(seed, per_user).dir, seed);
    struct stat st {};
    ASSERT_EQ(::stat(seed.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(log_dir_test, ASeedFolderOthersCanWriteIsNotUsed) {
    ASSERT_EQ(::mkdir(seed.c_str(), 0755), 0);
    ASSERT_EQ(::chmod(seed.c_str(), 0777), 0);
    const auto c = core::choose_log_dir(seed, per_user);
    EXPECT_EQ(c.dir, per_user);
    EXPECT_NE(c.why.find("writable by other users"), std::string::npos) << c.why;
}

TEST_F(log_dir_test, ALinkInPlaceOfTheSeedFolderIsNotFollowed) {
    fs::create_directory(root / "elsewhere");
    fs::create_directory_symlink(root / "elsewhere", seed);
    const auto c = core::choose_log_dir(seed, per_user);
    EXPECT_EQ(c.dir, per_user);
    EXPECT_NE(c.why.find("not a directory"), std::string::npos) << c.why;
}

TEST_F(log_dir_test, ASeedFolderOfAnotherUserIsNotUsed) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the folder to another user";
    ASSERT_EQ(::mkdir(seed.c_str(), 0755), 0);
    ASSERT_EQ(::chown(seed.c_str(), 65534, 65534), 0);  // nobody
    const auto c = core::choose_log_dir(seed, per_user);
    EXPECT_EQ(c.dir, per_user);
    EXPECT_NE(c.why.find("another user"), std::string::npos) << c.why;
}

// A privileged process's store (item 6 of the second reliability round): with $HOME ignored it
// went to /tmp/.local/state/cudabridge, which any user can make first. It is used only in a
// folder of its own user that no one else can write.
TEST_F(log_dir_test, APrivilegedStoreIsOnlyKeptInAFolderOfItsOwn) {
    const fs::path folder = root / "state";
    ASSERT_EQ(::mkdir(folder.c_str(), 0700), 0);
    EXPECT_FALSE(core::unsafe_store_location(folder / "cudabridge.db"));
    ASSERT_EQ(::chmod(folder.c_str(), 0777), 0);
    auto why = core::unsafe_store_location(folder / "cudabridge.db");
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("writable by other users"), std::string::npos) << *why;
    ASSERT_EQ(::chmod(folder.c_str(), 0700), 0);
    fs::create_symlink("/etc/passwd", folder / "cudabridge.db");
    why = core::unsafe_store_location(folder / "cudabridge.db");
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("not a regular file"), std::string::npos) << *why;
    fs::remove(folder / "cudabridge.db");
    if (::geteuid() != 0) return;
    ASSERT_EQ(::chown(folder.c_str(), 65534, 65534), 0);  // nobody made it first
    why = core::unsafe_store_location(folder / "cudabridge.db");
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("another user"), std::string::npos) << *why;
}

}  // namespace
}  // namespace cudabridge::test

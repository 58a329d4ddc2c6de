// A library a CUDABRIDGE_* variable names (the PTX engine, NVRTC) goes into the process only when
// no other user could have put it there: in a folder anyone can write (without the sticky bit) it
// is refused, naming the folder; a library that is not there, or a bare soname, is left to the
// loader, which says why it fails.
#include "sim/modules/library_from_environment.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

namespace cudabridge::nv::test {
namespace {

namespace fs = std::filesystem;

class library_from_environment_test : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/cb_libenv_XXXXXX";
        root = mkdtemp(pattern);
    }
    void TearDown() override {
        ::unsetenv(variable);
        fs::remove_all(root);
    }
    fs::path put_library(const fs::path& folder) {
        fs::create_directories(folder);
        std::ofstream(folder / "libfake.so") << "not really";
        return folder / "libfake.so";
    }
    static constexpr const char* variable = "CUDABRIDGE_TEST_LIBRARY";
    fs::path root;
};

TEST_F(library_from_environment_test, UnsetMeansTheBuiltInChoice) {
    const library_choice c = library_from_environment(variable);
    EXPECT_FALSE(c.path);
    EXPECT_TRUE(c.refused.empty());
}

TEST_F(library_from_environment_test, ALibraryOnlyItsOwnerCanReplaceIsTaken) {
    const fs::path lib = put_library(root / "private");
    ::chmod((root / "private").c_str(), 0755);
    ::setenv(variable, lib.c_str(), 1);
    const library_choice c = library_from_environment(variable);
    ASSERT_TRUE(c.path) << c.refused;
    EXPECT_EQ(*c.path, lib.string());
}

TEST_F(library_from_environment_test, ALibraryInAFolderAnyoneCanWriteIsRefused) {
    const fs::path lib = put_library(root / "open");
    ::chmod((root / "open").c_str(), 0777);
    ::setenv(variable, lib.c_str(), 1);
    const library_choice c = library_from_environment(variable);
    EXPECT_FALSE(c.path);
    EXPECT_NE(c.refused.find("world-writable folder " + (root / "open").string()), std::string::npos) << c.refused;
    EXPECT_NE(c.refused.find(variable), std::string::npos) << c.refused;
}

TEST_F(library_from_environment_test, AMissingFileOrASonameIsLeftToTheLoader) {
    ::setenv(variable, (root / "absent.so").c_str(), 1);
    EXPECT_TRUE(library_from_environment(variable).path);
    ::setenv(variable, "libnvrtc.so.13", 1);
    EXPECT_TRUE(library_from_environment(variable).path);
}

}  // namespace
}  // namespace cudabridge::nv::test

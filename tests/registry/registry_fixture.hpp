// Shared set-up for registry tests: a temporary store and paths to the test plugin variants.
#pragma once

#include "process.hpp"
#include "temp_dir.hpp"

#include <cudabridge/core/registry.hpp>
#include <cudabridge/core/store.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

namespace cudabridge::test {

inline std::string variant_dir(const std::string& variant) {
    return std::string(CB_TEST_BUILD_DIR) + "/test-plugins/" + variant;
}
inline std::string variant_file(const std::string& variant) { return variant_dir(variant) + "/lib" + variant + ".so"; }

// Search options that see only the given folders: no environment, no user or installed folder.
inline core::search_options only(std::vector<std::filesystem::path> paths) {
    core::search_options o;
    o.extra_paths = std::move(paths);
    o.use_environment = false;
    o.privileged = false;
    o.installed_dir = "/nonexistent/cudabridge-plugins";
    return o;
}

class registry_test : public ::testing::Test {
protected:
    void SetUp() override {
        // Keep the user plugin folder inside the temporary tree.
        setenv("XDG_DATA_HOME", (tmp / "data").c_str(), 1);
        unsetenv("CUDABRIDGE_PLUGIN_PATH");
        unsetenv("CUDABRIDGE_ADD_PLUGIN_PATH");
        db = std::make_unique<core::store>(tmp / "cb.db");
    }
    temp_dir tmp;
    std::unique_ptr<core::store> db;
};

}  // namespace cudabridge::test

// Runs the seed's C logging example and checks what reached the console and the log file.
#include "process.hpp"
#include "temp_dir.hpp"

#include <cudabridge/core/store.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace cudabridge::test {
namespace {

TEST(seed_c_logging, ConsoleAndRotatingFileGetTheRecords) {
    temp_dir tmp;
    {
        // Point the file sink at the temporary tree through the stored setting it declares.
        core::store s(tmp / "state" / "cudabridge" / "cudabridge.db");
        core::set_setting(s, "global", "file.dir", (tmp / "logs").string());
    }
    process_options o;
    o.set_env = {
        {"HOME", tmp.path()}, {"XDG_STATE_HOME", (tmp / "state").string()}, {"XDG_DATA_HOME", (tmp / "data").string()}};
    o.unset_env = {"CUDABRIDGE_HOME", "CUDABRIDGE_PLUGIN_PATH", "CUDABRIDGE_ADD_PLUGIN_PATH"};
    auto r = run_process(std::string(CB_TEST_BUILD_DIR) + "/bin/seed_logging", {}, o);
    ASSERT_EQ(r.exit_code, 0) << r.err;

    std::ifstream in(tmp / "logs" / "cudabridge.log");
    std::stringstream file;
    file << in.rdbuf();
    for (const std::string& text : {r.err, file.str()}) {
        EXPECT_NE(text.find("[DRIVER] "), std::string::npos) << text;
        EXPECT_NE(text.find("GPU initialized: NVIDIA GeForce RTX 5090"), std::string::npos) << text;
        EXPECT_NE(text.find("Connection lost: link down"), std::string::npos);
        EXPECT_NE(text.find("High VRAM usage: 93.5%"), std::string::npos);
        EXPECT_NE(text.find("shown: EGPU now at DEBUG"), std::string::npos);
        EXPECT_EQ(text.find("hidden:"), std::string::npos);
    }
}

}  // namespace
}  // namespace cudabridge::test

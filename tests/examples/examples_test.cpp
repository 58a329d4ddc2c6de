// Runs the three C examples (examples/) against the simulated eGPU, each with its own state
// folder, and checks their exit codes and the lines that say what they found: results that
// match the CPU, and figures labelled as modeled by the simulator.
#include "process.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cudabridge::test {
namespace {

class examples_test : public ::testing::Test {
protected:
    // A fresh CUDABRIDGE_HOME (and HOME / XDG folders) per test; no plugin choice inherited.
    process_options env() const {
        process_options o;
        o.set_env = {{"CUDABRIDGE_HOME", tmp.path()},
                     {"HOME", tmp.path()},
                     {"XDG_STATE_HOME", (tmp / "state").string()},
                     {"XDG_DATA_HOME", (tmp / "data").string()},
                     {"CUDABRIDGE_LOG_SINKS", "console,sqlite"}};
        o.unset_env = {"CUDABRIDGE_PLUGIN_PATH",
                       "CUDABRIDGE_ADD_PLUGIN_PATH",
                       "CUDABRIDGE_TRANSPORT",
                       "CUDABRIDGE_GPU",
                       "CUDABRIDGE_SAFETY",
                       "CUDABRIDGE_AUTOCONNECT",
                       "NO_COLOR"};
        o.timeout_ms = 120000;
        return o;
    }
    process_result run(const std::string& example, const std::vector<std::string>& args,
                       const process_options& o) const {
        return run_process(std::string(CB_TEST_BUILD_DIR) + "/bin/" + example, args, o);
    }
    process_result run(const std::string& example, const std::vector<std::string>& args = {}) const {
        return run(example, args, env());
    }
    static bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

    temp_dir tmp;
};

TEST_F(examples_test, DeviceInfoDescribesTheSimulatedGpuAndItsLink) {
    const auto r = run("device_info");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const char* line :
         {"Device 0", "RTX 5090", "Compute capability:", "Multiprocessors:", "Max grid dimensions:", "PCI bus id:",
          "Backend:", "Thunderbolt", "PCIe Gen", "simulated (figures modeled)", "Memory in use:"})
        EXPECT_TRUE(has(r.out, line)) << line << "\n" << r.out;
    EXPECT_FALSE(has(r.out, "hardware (figures measured)")) << r.out;
}

TEST_F(examples_test, VectorAddMatchesTheCpuAndLabelsItsTimesModeled) {
    // 1000: not a multiple of the user kernel's 256-thread blocks, so the last block is partial.
    const auto r = run("vector_add", {"1000"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(has(r.out, "Vectors: 1000 float32 elements")) << r.out;
    EXPECT_TRUE(has(r.out, "vector add (built-in \"add\"): PASS (1000 elements")) << r.out;
    EXPECT_TRUE(has(r.out, "Times (modeled by the simulator")) << r.out;
    EXPECT_TRUE(has(r.out, "user kernel (c *= 3): PASS (1000 elements")) << r.out;
    EXPECT_TRUE(has(r.out, "\nPASS\n")) << r.out;
    EXPECT_FALSE(has(r.out, "FAIL")) << r.out;
}

TEST_F(examples_test, VectorAddRefusesABadCount) {
    for (const char* bad : {"0", "-5", "abc", "12x"}) {
        const auto r = run("vector_add", {bad});
        EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out << r.err;
        EXPECT_TRUE(has(r.err, "usage:")) << r.err;
    }
}

TEST_F(examples_test, BandwidthTestQuickSweepChecksEveryRoundTrip) {
    const auto r = run("bandwidth_test", {"--quick"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const char* line :
         {"wall:   measured on this machine", "device: modeled", "Pageable host memory (malloc)",
          "Pinned host memory (cbMallocHost)", "Device to device", "4 KiB", "1 MiB", "PASS: every round trip"})
        EXPECT_TRUE(has(r.out, line)) << line << "\n" << r.out;
    EXPECT_FALSE(has(r.out, "MISMATCH")) << r.out;
    EXPECT_FALSE(has(r.out, "4 MiB")) << "--quick stops at 1 MiB\n" << r.out;
}

TEST_F(examples_test, BandwidthTestRefusesUnknownOptions) {
    const auto r = run("bandwidth_test", {"--max-mb", "0"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_TRUE(has(r.err, "usage:")) << r.err;
}

TEST_F(examples_test, AMissingTransportPluginFailsCleanlyWithItsName) {
    auto o = env();
    o.set_env["CUDABRIDGE_TRANSPORT"] = "nosuchplugin";
    for (const char* example : {"device_info", "vector_add"}) {
        const auto r = run(example, {}, o);
        EXPECT_EQ(r.signal, 0) << example << " crashed\n" << r.err;
        EXPECT_NE(r.exit_code, 0) << example << "\n" << r.out;
        EXPECT_TRUE(has(r.err, "error: cbInit() failed")) << example << "\n" << r.err;
        EXPECT_TRUE(has(r.err, "nosuchplugin")) << example << "\n" << r.err;
        EXPECT_FALSE(has(r.out, "PASS")) << r.out;
    }
}

}  // namespace
}  // namespace cudabridge::test

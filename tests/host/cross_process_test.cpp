// A safe disconnect in one process is device-lost in another process using the same eGPU, on
// its next call, and stays so (sticky) — never a hang or wrong data.
#include "host_fixture.hpp"

#include "process.hpp"

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

namespace cudabridge::test {
namespace {

TEST_F(host_test, ADisconnectIsDeviceLostInTheOtherProcess) {
    auto s = open_session();
    auto owner = host::connect(*s);
    const std::string ready = (tmp / "probe.ready").string();
    process_options o;
    o.set_env = {{"CUDABRIDGE_HOME", tmp.path()},
                 {"CUDABRIDGE_LOG_SINKS", "sqlite"},
                 {"CUDABRIDGE_AUTOCONNECT", "0"},
                 {"CUDABRIDGE_PLUGIN_PATH", CB_TEST_PLUGIN_DIR}};
    o.timeout_ms = 60000;
    auto child = std::async(std::launch::async, [&] { return run_process(CB_ATTACH_PROBE, {ready}, o); });
    for (int i = 0; i < 3000 && !std::filesystem::exists(ready); ++i) {
        if (child.wait_for(std::chrono::milliseconds(10)) == std::future_status::ready) break;
    }
    ASSERT_TRUE(std::filesystem::exists(ready)) << "the probe never attached: " << child.get().out;
    const auto report = owner->disconnect({});
    EXPECT_TRUE(report.drained);
    const process_result r = child.get();
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("cbErrorDeviceLost"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("another process"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("then cbErrorDeviceLost"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cudabridge::test

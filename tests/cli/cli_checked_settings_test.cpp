// Settings are checked by what their plugin declared when they are set, and a fresh store knows
// every plugin's settings before any device command ran.
#include "cli_fixture.hpp"

#include <filesystem>

namespace cudabridge::test {
namespace {

TEST_F(cli_test, PluginSettingsAreKnownOnAFreshStore) {
    // `config set standard.thermal_limit 85` failed until a device command had run once.
    const auto r = run({"config", "set", "standard.thermal_limit", "85"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(run({"config", "get", "standard.thermal_limit"}).out, "85\n");
    EXPECT_EQ(run({"config", "get", "usb4.max_payload"}).out, "256\n");
    const auto list = run({"config", "list"});
    EXPECT_NE(list.out.find("usb4.max_payload"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("standard.thermal_limit"), std::string::npos) << list.out;
}

TEST_F(cli_test, ValuesTheirPluginCannotUseAreRefusedWhenSet) {
    // Each was accepted, and the plugin failed later (every device command, or the log sink).
    const std::vector<refusal> refused = {
        {{"config", "set", "usb4.max_payload", "300"}, 1, "one of: 128, 256, 512"},
        {{"config", "set", "usb4.max_read_request", "1000"}, 1, "one of: 128, 256, 512, 1024, 2048, 4096"},
        {{"config", "set", "usb4.backend", "bluetooth"}, 1, "one of: auto, sim, linux"},
        {{"config", "set", "console.color", "rainbow"}, 1, "one of: auto, always, never"},
        {{"config", "set", "console.level", "LOUD"}, 1, "one of: TRACE"},
        {{"config", "set", "file.dir", "/proc/nonexistent/x"}, 1, "cannot create the folder /proc/nonexistent/x"},
        {{"config", "set", "file.dir", "relative/logs"}, 1, "absolute folder path"},
    };
    expect_refused(refused);
    EXPECT_EQ(run({"config", "get", "usb4.max_payload"}).out, "256\n");  // nothing was stored
}

TEST_F(cli_test, ValuesTheirPluginCanUseAreAccepted) {
    EXPECT_EQ(run({"config", "set", "usb4.max_payload", "512"}).exit_code, 0);
    EXPECT_EQ(run({"config", "set", "console.color", "never"}).exit_code, 0);
    const auto dir = tmp / "new" / "logs";
    const auto r = run({"config", "set", "file.dir", dir.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::filesystem::is_directory(dir));  // created when set
    EXPECT_EQ(run({"config", "get", "file.dir"}).out, dir.string() + "\n");
}

}  // namespace
}  // namespace cudabridge::test

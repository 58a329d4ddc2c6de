// console: the line format on stderr and the colour decision (color=, NO_COLOR, terminal).
#include "logging_plugin.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace cbtest {
namespace {

bool has_escape(const std::string& s) { return s.find('\x1b') != std::string::npos; }

// Creates a console sink with `color` (unset when empty), writes two records, returns stderr.
std::string run_console(const std::string& color, stderr_capture::target target, cb_status* create_status = nullptr,
                        const std::string& level = "") {
    temp_dir dir;
    fake_host host(dir.path());
    if (!color.empty()) host.config["color"] = color;
    if (!level.empty()) host.config["level"] = level;
    stderr_capture capture(target);
    {
        sink s("console", host);
        if (create_status != nullptr) *create_status = s.status();
        if (!s.ok()) return capture.finish() + "\ncreate failed: " + host.last_error();
        record_data a;
        a.level = CB_LOG_INFO;
        a.time_ns = fixed_time_ns;
        a.thread_id = 1234;
        a.category = "DRIVER";
        a.device = "egpu0";
        a.message = "link up";
        record_data b = a;
        b.level = CB_LOG_ERROR;
        b.device.reset();
        b.message = "lost";
        EXPECT_EQ(s.write(a.record()), CB_OK);
        EXPECT_EQ(s.write_batch({b.record()}), CB_OK);
        EXPECT_EQ(s.flush(), CB_OK);
        s.close();
    }
    return capture.finish();
}

TEST(ConsoleSink, NeverHasNoEscapesAndTheDocumentedFormat) {
    const std::string out = run_console("never", stderr_capture::target::file);
    EXPECT_FALSE(has_escape(out)) << out;
    const std::string stamp = local_stamp(fixed_time_ns);
    EXPECT_EQ(out,
              stamp + " [INFO ] [DRIVER] [t:1234] [egpu0] link up\n" + stamp + " [ERROR] [DRIVER] [t:1234] lost\n");
}

TEST(ConsoleSink, NeverOnATerminalHasNoEscapes) {
    scoped_env no_color("NO_COLOR", std::nullopt);
    const std::string out = run_console("never", stderr_capture::target::terminal);
    EXPECT_NE(out.find("link up"), std::string::npos) << out;
    EXPECT_FALSE(has_escape(out)) << out;
}

TEST(ConsoleSink, AlwaysColoursTheLevelEvenInAFile) {
    const std::string out = run_console("always", stderr_capture::target::file);
    EXPECT_TRUE(has_escape(out)) << out;
    EXPECT_NE(out.find("[\x1b[32mINFO\x1b[m ]"), std::string::npos) << out;
    EXPECT_NE(out.find("\x1b[31m\x1b[1mERROR\x1b[m]"), std::string::npos) << out;
}

TEST(ConsoleSink, AutoColoursATerminal) {
    scoped_env no_color("NO_COLOR", std::nullopt);
    scoped_env term("TERM", std::string("xterm-256color"));
    const std::string out = run_console("", stderr_capture::target::terminal);
    EXPECT_NE(out.find("link up"), std::string::npos) << out;
    EXPECT_TRUE(has_escape(out)) << out;
}

TEST(ConsoleSink, AutoHonoursNoColorOnATerminal) {
    scoped_env term("TERM", std::string("xterm-256color"));
    for (const char* value : {"1", ""}) {  // any value, even empty, per no-color.org
        scoped_env no_color("NO_COLOR", std::string(value));
        const std::string out = run_console("auto", stderr_capture::target::terminal);
        EXPECT_NE(out.find("link up"), std::string::npos) << out;
        EXPECT_FALSE(has_escape(out)) << "NO_COLOR='" << value << "': " << out;
    }
}

TEST(ConsoleSink, AutoIsPlainWhenNotATerminal) {
    scoped_env no_color("NO_COLOR", std::nullopt);
    const std::string out = run_console("auto", stderr_capture::target::file);
    EXPECT_FALSE(has_escape(out)) << out;
}

TEST(ConsoleSink, LevelKeepsOnlyRecordsAtOrAboveIt) {
    const std::string all = run_console("never", stderr_capture::target::file);
    EXPECT_NE(all.find("link up"), std::string::npos) << all;
    const std::string errors = run_console("never", stderr_capture::target::file, nullptr, "ERROR");
    EXPECT_EQ(errors.find("link up"), std::string::npos) << errors;  // INFO: below the floor
    EXPECT_NE(errors.find("lost"), std::string::npos) << errors;     // ERROR: shown (batch path too)
    cb_status st = CB_OK;
    const std::string bad = run_console("never", stderr_capture::target::file, &st, "LOUD");
    EXPECT_EQ(st, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(bad.find("LOUD"), std::string::npos) << bad;
}

TEST(ConsoleSink, UnknownColorModeFailsCreate) {
    cb_status st = CB_OK;
    const std::string out = run_console("sometimes", stderr_capture::target::file, &st);
    EXPECT_EQ(st, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(out.find("color"), std::string::npos) << out;
    EXPECT_NE(out.find("sometimes"), std::string::npos) << out;
}

}  // namespace
}  // namespace cbtest

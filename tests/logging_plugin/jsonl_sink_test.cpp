// jsonl: one parseable object per line with every field, awkward messages intact.
#include "logging_plugin.hpp"

#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <ctime>
#include <regex>

namespace cbtest {
namespace {

namespace fs = std::filesystem;

std::string expected_iso(int64_t ns) {
    const std::time_t secs = static_cast<std::time_t>(ns / 1'000'000'000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char text[64];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%09lld", static_cast<long long>(ns % 1'000'000'000));
    return std::string(text) + frac + "Z";
}

Poco::JSON::Object::Ptr parse(const std::string& line) {
    Poco::JSON::Parser parser;
    return parser.parse(line).extract<Poco::JSON::Object::Ptr>();
}

TEST(JsonlSink, EachLineParsesAndCarriesEveryField) {
    temp_dir dir;
    fake_host host(dir.path());
    const fs::path file = dir / "out" / "records.jsonl";
    host.config["path"] = file.string();

    std::vector<record_data> data(4);
    data[0].level = CB_LOG_INFO;
    data[0].category = "DRIVER";
    data[0].message = "plain";
    data[1].level = CB_LOG_ERROR;
    data[1].category = "EGPU";
    data[1].device = "egpu0";
    data[1].message = "say \"hi\"\nsecond line\tand a tab \\ backslash";
    data[2].level = CB_LOG_FATAL;
    data[2].category = "CLI";
    data[2].message = "UTF-8: température 91 °C — ✓ 日本語 🚀";
    data[3].level = CB_LOG_TRACE;
    data[3].category = "PYTHON";
    data[3].device = "";
    data[3].message = std::string("control \x01 and \x1f chars");
    for (size_t i = 0; i < data.size(); ++i) {
        data[i].time_ns = fixed_time_ns + static_cast<int64_t>(i);
        data[i].thread_id = 4000000000ULL + i;  // beyond 32 bits
    }
    {
        sink s("jsonl", host);
        ASSERT_TRUE(s.ok()) << host.last_error();
        ASSERT_EQ(s.write(data[0].record()), CB_OK);
        ASSERT_EQ(s.write_batch({data[1].record(), data[2].record(), data[3].record()}), CB_OK);
        ASSERT_EQ(s.flush(), CB_OK);
        s.close();
    }
    const auto lines = read_lines(file);
    ASSERT_EQ(lines.size(), data.size());
    const char* names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
    for (size_t i = 0; i < lines.size(); ++i) {
        SCOPED_TRACE(lines[i]);
        // Keys in the documented order.
        EXPECT_EQ(lines[i].rfind("{\"time\":", 0), 0u);
        const auto o = parse(lines[i]);
        EXPECT_EQ(o->getValue<std::string>("time"), expected_iso(data[i].time_ns));
        EXPECT_EQ(o->getValue<Poco::Int64>("time_ns"), data[i].time_ns);
        EXPECT_EQ(o->getValue<std::string>("level"), names[data[i].level]);
        EXPECT_EQ(o->getValue<std::string>("category"), data[i].category);
        EXPECT_EQ(o->getValue<Poco::UInt64>("thread"), data[i].thread_id);
        if (data[i].device) {
            EXPECT_EQ(o->getValue<std::string>("device"), *data[i].device);
        } else {
            EXPECT_TRUE(o->isNull("device"));
        }
        EXPECT_EQ(o->getValue<std::string>("message"), data[i].message);
        EXPECT_EQ(o->size(), 7u);
    }
    EXPECT_TRUE(std::regex_search(lines[0], std::regex(R"("device":null)")));
    // UTF-8 is written as is, not as \u escapes.
    EXPECT_NE(lines[2].find("température"), std::string::npos);
}

TEST(JsonlSink, DefaultPathIsInTheHostLogDirAndAppends) {
    temp_dir dir;
    fake_host host(dir.path());
    record_data r;
    r.message = "first";
    for (int round = 0; round < 2; ++round) {
        sink s("jsonl", host);
        ASSERT_TRUE(s.ok()) << host.last_error();
        ASSERT_EQ(s.write(r.record()), CB_OK);
    }
    const auto lines = read_lines(dir / "logs" / "cudabridge.jsonl");
    EXPECT_EQ(lines.size(), 2u);
    EXPECT_EQ(host.declaration("path").default_value, (dir / "logs" / "cudabridge.jsonl").string());
}

TEST(JsonlSink, UnwritablePathFailsCleanly) {
    temp_dir dir;
    fake_host host(dir.path());
    host.config["path"] = "/proc/cudabridge_logging_test/x.jsonl";
    sink s("jsonl", host);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(host.last_error().find("/proc/cudabridge_logging_test"), std::string::npos) << host.last_error();
}

}  // namespace
}  // namespace cbtest

// syslog: creates, writes every level, flushes and closes without error; facility checked.
#include "logging_plugin.hpp"

#include <gtest/gtest.h>

namespace cbtest {
namespace {

TEST(SyslogSink, CreatesAndWritesEveryLevel) {
    temp_dir dir;
    fake_host host(dir.path());
    host.config["ident"] = "cudabridge-test";
    host.config["facility"] = "local3";
    sink s("syslog", host);
    ASSERT_TRUE(s.ok()) << host.last_error();
    std::vector<record_data> data(6);
    std::vector<cb_log_record> batch;
    for (int l = CB_LOG_TRACE; l <= CB_LOG_FATAL; ++l) {
        data[l].level = l;
        data[l].category = "GENERAL";
        data[l].device = (l % 2) ? std::optional<std::string>("egpu0") : std::nullopt;
        data[l].message = "logging plugin test, level " + std::to_string(l);
        batch.push_back(data[l].record());
    }
    EXPECT_EQ(s.write(batch[2]), CB_OK);
    EXPECT_EQ(s.write_batch(batch), CB_OK);
    EXPECT_EQ(s.flush(), CB_OK);
    s.close();
}

TEST(SyslogSink, DefaultsAreUserAndCudabridge) {
    temp_dir dir;
    fake_host host(dir.path());
    sink s("syslog", host);
    ASSERT_TRUE(s.ok()) << host.last_error();
    EXPECT_EQ(host.declaration("ident").default_value, "cudabridge");
    EXPECT_EQ(host.declaration("facility").default_value, "user");
}

TEST(SyslogSink, UnknownFacilityIsRefused) {
    temp_dir dir;
    fake_host host(dir.path());
    host.config["facility"] = "kernel";
    sink s("syslog", host);
    EXPECT_EQ(s.status(), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(host.last_error().find("facility"), std::string::npos) << host.last_error();
    EXPECT_NE(host.last_error().find("local7"), std::string::npos) << host.last_error();
}

}  // namespace
}  // namespace cbtest

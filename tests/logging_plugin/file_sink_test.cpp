// file: default location and format, rotation by size and count, parameters, failures.
#include "logging_plugin.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include <sys/stat.h>
#include <unistd.h>

namespace cbtest {
namespace {

namespace fs = std::filesystem;

record_data sample(int i) {
    record_data r;
    r.level = static_cast<cb_log_level>(i % 6);
    r.time_ns = fixed_time_ns + i * 1000LL;
    r.thread_id = 42;
    r.category = "PCIE";
    r.device = "egpu0";
    r.message = "record " + std::to_string(i) + " " + std::string(40, 'x');
    return r;
}

TEST(FileSink, DefaultsWriteTheDocumentedLineIntoTheHostLogDir) {
    temp_dir dir;
    fake_host host(dir.path());
    host.paths[CB_PATH_LOG_DIR] = (dir / "logs" / "nested").string();  // missing
    {
        sink s("file", host);
        ASSERT_TRUE(s.ok()) << host.last_error();
        record_data r;
        r.level = CB_LOG_WARN;
        r.time_ns = fixed_time_ns;
        r.thread_id = 1234;
        r.category = "USB4";
        r.message = "retrain";
        ASSERT_EQ(s.write(r.record()), CB_OK);
        r.device = "egpu1";
        r.level = CB_LOG_FATAL;
        ASSERT_EQ(s.write_batch({r.record()}), CB_OK);
        ASSERT_EQ(s.flush(), CB_OK);
    }
    const fs::path file = dir / "logs" / "nested" / "cudabridge.log";
    ASSERT_TRUE(fs::exists(file));
    const std::string stamp = local_stamp(fixed_time_ns);
    EXPECT_EQ(read_file(file),
              stamp + " [WARN ] [USB4] [t:1234] retrain\n" + stamp + " [FATAL] [USB4] [t:1234] [egpu1] retrain\n");

    // Private: a 0700 folder and a 0600 file, whatever the umask lets through.
    struct stat st {};
    ASSERT_EQ(::stat((dir / "logs" / "nested").c_str(), &st), 0);
    const mode_t mask = ::umask(0);
    ::umask(mask);
    EXPECT_EQ(st.st_mode & 0777, 0700 & ~mask);
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600);
}

TEST(FileSink, FlushMakesRecordsVisibleBeforeClose) {
    temp_dir dir;
    fake_host host(dir.path());
    sink s("file", host);
    ASSERT_TRUE(s.ok()) << host.last_error();
    ASSERT_EQ(s.write(sample(1).record()), CB_OK);
    ASSERT_EQ(s.flush(), CB_OK);
    EXPECT_NE(read_file(dir / "logs" / "cudabridge.log").find("record 1 "), std::string::npos);
}

TEST(FileSink, RotatesBySizeAndKeepsMaxFiles) {
    temp_dir dir;
    fake_host host(dir.path());
    host.config["dir"] = (dir / "rot").string();
    host.config["name"] = "app.log";
    host.config["max_size"] = "4096";
    host.config["max_files"] = "3";
    {
        sink s("file", host);
        ASSERT_TRUE(s.ok()) << host.last_error();
        std::vector<record_data> data;
        for (int i = 0; i < 2000; ++i) data.push_back(sample(i));
        for (size_t start = 0; start < data.size(); start += 100) {
            std::vector<cb_log_record> batch;
            for (size_t i = start; i < start + 100; ++i) batch.push_back(data[i].record());
            ASSERT_EQ(s.write_batch(batch), CB_OK);
        }
        ASSERT_EQ(s.flush(), CB_OK);
        s.close();
    }
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir / "rot")) {
        names.insert(e.path().filename().string());
        EXPECT_LE(fs::file_size(e.path()), 4096u) << e.path();
        // A rotated file was full: the next line did not fit.
        if (e.path().filename() != "app.log") {
            EXPECT_GT(fs::file_size(e.path()), 3000u) << e.path();
        }
    }
    EXPECT_EQ(names, (std::set<std::string>{"app.log", "app.1.log", "app.2.log", "app.3.log"}));
    // The newest record is in the current file, older ones in .1 and beyond.
    EXPECT_NE(read_file(dir / "rot" / "app.log").find("record 1999 "), std::string::npos);
    EXPECT_EQ(read_file(dir / "rot" / "app.3.log").find("record 1999 "), std::string::npos);
}

TEST(FileSink, StoredSettingIsUsedWhenNoInstanceConfig) {
    temp_dir dir;
    fake_host host(dir.path());
    host.settings["name"] = "from-setting.log";
    {
        sink s("file", host);
        ASSERT_TRUE(s.ok()) << host.last_error();
        ASSERT_EQ(s.write(sample(0).record()), CB_OK);
    }
    EXPECT_TRUE(fs::exists(dir / "logs" / "from-setting.log"));
    host.config["name"] = "from-config.log";  // instance config wins over the setting
    {
        sink s("file", host);
        ASSERT_TRUE(s.ok()) << host.last_error();
    }
    EXPECT_TRUE(fs::exists(dir / "logs" / "from-config.log"));
}

TEST(FileSink, UnwritableFolderFailsCleanlyNamingThePath) {
    temp_dir dir;
    fake_host host(dir.path());
    host.config["dir"] = "/proc/cudabridge_logging_test/logs";
    sink s("file", host);
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(s.status() == CB_ERR_PERMISSION || s.status() == CB_ERR_INVALID_ARGUMENT) << s.status();
    EXPECT_NE(host.last_error().find("/proc/cudabridge_logging_test"), std::string::npos) << host.last_error();
}

TEST(FileSink, FolderThatIsAFileFails) {
    temp_dir dir;
    fake_host host(dir.path());
    const fs::path blocker = dir / "plain";
    { std::ofstream(blocker) << "x"; }
    host.config["dir"] = (blocker / "logs").string();
    sink s("file", host);
    EXPECT_EQ(s.status(), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(host.last_error().find(blocker.string()), std::string::npos) << host.last_error();
}

TEST(FileSink, ReadOnlyFolderIsAPermissionError) {
    if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
    temp_dir dir;
    fake_host host(dir.path());
    const fs::path ro = dir / "ro";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    host.config["dir"] = (ro / "logs").string();
    sink s("file", host);
    EXPECT_EQ(s.status(), CB_ERR_PERMISSION);
    EXPECT_NE(host.last_error().find(ro.string()), std::string::npos) << host.last_error();
}

TEST(FileSink, BadNumbersAreRefusedWithTheParamName) {
    const std::pair<const char*, const char*> bad[] = {
        {"max_size", "abc"}, {"max_size", "10"}, {"max_files", "-1"}, {"max_files", "5x"}};
    for (const auto& [key, value] : bad) {
        temp_dir dir;
        fake_host host(dir.path());
        host.config[key] = value;
        sink s("file", host);
        EXPECT_EQ(s.status(), CB_ERR_INVALID_ARGUMENT) << key << "=" << value;
        EXPECT_NE(host.last_error().find(key), std::string::npos) << host.last_error();
    }
}

TEST(FileSink, NameWithSlashIsRefused) {
    temp_dir dir;
    fake_host host(dir.path());
    host.config["name"] = "a/b.log";
    sink s("file", host);
    EXPECT_EQ(s.status(), CB_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace cbtest

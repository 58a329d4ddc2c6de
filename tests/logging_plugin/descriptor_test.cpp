// The library's descriptor: ABI, names, kinds, sizes, tables, and each sink's declared params.
#include "logging_plugin.hpp"

#include <gtest/gtest.h>

#include <set>

#include <sqlite3.h>

namespace cbtest {
namespace {

const char* const logs_ddl =
    "CREATE TABLE logs(id INTEGER PRIMARY KEY, time_ns INTEGER NOT NULL, level INTEGER NOT NULL,"
    " category TEXT NOT NULL, thread_id INTEGER NOT NULL DEFAULT 0, device TEXT,"
    " message TEXT NOT NULL)";

TEST(LoggingPluginDescriptor, LibraryMatchesAbi) {
    const cb_plugin_library& lib = logging_library();
    EXPECT_EQ(lib.struct_size, sizeof(cb_plugin_library));
    EXPECT_EQ(lib.abi_major, CB_ABI_MAJOR);
    EXPECT_EQ(lib.abi_minor, CB_ABI_MINOR);
    EXPECT_EQ(lib.plugin_count, 5u);
}

TEST(LoggingPluginDescriptor, FiveLogSinksWithFullTables) {
    const cb_plugin_library& lib = logging_library();
    std::set<std::string> names;
    for (size_t i = 0; i < lib.plugin_count; ++i) {
        const cb_plugin_descriptor* d = lib.plugins[i];
        ASSERT_NE(d, nullptr);
        EXPECT_EQ(d->struct_size, sizeof(cb_plugin_descriptor));
        EXPECT_EQ(d->kind, CB_KIND_LOGSINK);
        ASSERT_NE(d->name, nullptr);
        names.insert(d->name);
        EXPECT_GE(d->version, CB_MAKE_VERSION(1, 0, 0));
        EXPECT_STRNE(d->license, "");
        EXPECT_STRNE(d->description, "");
        EXPECT_NE(d->create, nullptr);
        EXPECT_NE(d->destroy, nullptr);
        const auto* t = static_cast<const cb_logsink_table*>(d->table);
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(t->struct_size, sizeof(cb_logsink_table));
        EXPECT_TRUE(CB_HAS_FIELD(t, cb_logsink_table, write));
        EXPECT_TRUE(CB_HAS_FIELD(t, cb_logsink_table, flush));
        EXPECT_TRUE(CB_HAS_FIELD(t, cb_logsink_table, close));
        EXPECT_TRUE(CB_HAS_FIELD(t, cb_logsink_table, write_batch));
    }
    EXPECT_EQ(names, (std::set<std::string>{"console", "file", "sqlite", "jsonl", "syslog"}));
}

struct expected_params {
    const char* sink;
    std::set<std::string> names;
    std::set<std::string> numeric;
};

TEST(LoggingPluginDescriptor, EverySinkDeclaresItsParamsWithHelp) {
    const expected_params all[] = {
        {"console", {"color", "level"}, {}},
        {"file", {"dir", "name", "max_size", "max_files"}, {"max_size", "max_files"}},
        {"sqlite", {"path", "busy_timeout_ms"}, {"busy_timeout_ms"}},
        {"jsonl", {"path"}, {}},
        {"syslog", {"ident", "facility"}, {}},
    };
    for (const auto& e : all) {
        SCOPED_TRACE(e.sink);
        temp_dir dir;
        fake_host host(dir.path());
        if (std::string(e.sink) == "sqlite") {
            sqlite3* db = nullptr;
            ASSERT_EQ(sqlite3_open(host.paths[CB_PATH_DATABASE].c_str(), &db), SQLITE_OK);
            ASSERT_EQ(sqlite3_exec(db, logs_ddl, nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(db);
        }
        if (std::string(e.sink) == "console") host.config["color"] = "never";
        sink s(e.sink, host);
        ASSERT_TRUE(s.ok()) << host.last_error();
        std::set<std::string> declared;
        for (const auto& p : host.declared()) {
            const std::string& name = p.name;
            declared.insert(name);
            EXPECT_GE(p.help.size(), 10u) << name << " has no useful help";
            if (e.numeric.count(name) != 0) {
                EXPECT_EQ(p.type, CB_PARAM_INT) << name;
                EXPECT_TRUE(p.has_range) << name;
                EXPECT_LT(p.min, p.max) << name;
            }
        }
        EXPECT_EQ(declared, e.names);
    }
}

TEST(LoggingPluginDescriptor, SinksDeclareWhatTheyAcceptSoTheHostRefusesTheRestWhenSet) {
    temp_dir dir;
    fake_host console_host(dir.path());
    console_host.config["color"] = "never";
    sink console("console", console_host);
    ASSERT_TRUE(console.ok()) << console_host.last_error();
    EXPECT_EQ(console_host.declaration("color").choices, "auto,always,never");
    EXPECT_EQ(console_host.declaration("level").choices, "TRACE,DEBUG,INFO,WARN,ERROR,FATAL");
    fake_host file_host(dir.path());
    sink file("file", file_host);
    ASSERT_TRUE(file.ok()) << file_host.last_error();
    EXPECT_EQ(file_host.declaration("dir").flags, static_cast<uint32_t>(CB_PARAM_FLAG_DIRECTORY));
    EXPECT_EQ(file_host.declaration("name").flags, 0u);
}

TEST(LoggingPluginDescriptor, FileDefaultsAreDocumentedOnes) {
    temp_dir dir;
    fake_host host(dir.path());
    sink s("file", host);
    ASSERT_TRUE(s.ok()) << host.last_error();
    EXPECT_EQ(host.declaration("dir").default_value, host.paths[CB_PATH_LOG_DIR]);
    EXPECT_EQ(host.declaration("name").default_value, "cudabridge.log");
    EXPECT_EQ(host.declaration("max_size").default_value, "10485760");
    EXPECT_EQ(host.declaration("max_files").default_value, "5");
}

TEST(LoggingPluginDescriptor, FileFallsBackToTmpLogDirWithoutHostPath) {
    temp_dir dir;
    fake_host host(dir.path());
    host.paths.erase(CB_PATH_LOG_DIR);
    host.config["dir"] = (dir / "elsewhere").string();  // do not write to /tmp itself
    sink s("file", host);
    ASSERT_TRUE(s.ok()) << host.last_error();
    EXPECT_EQ(host.declaration("dir").default_value, "/tmp/cudabridge_logs");
}

TEST(LoggingPluginDescriptor, NullRecordAndUseAfterCloseAreRefused) {
    temp_dir dir;
    fake_host host(dir.path());
    host.config["path"] = (dir / "x.jsonl").string();
    sink s("jsonl", host);
    ASSERT_TRUE(s.ok()) << host.last_error();
    EXPECT_EQ(s.table()->write(s.instance(), nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(s.table()->write_batch(s.instance(), nullptr, 3), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(s.table()->write_batch(s.instance(), nullptr, 0), CB_OK);
    s.close();
    record_data r;
    r.message = "late";
    EXPECT_EQ(s.write(r.record()), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(host.last_error().find("closed"), std::string::npos) << host.last_error();
}

TEST(LoggingPluginDescriptor, UnknownSinkIsNotFound) { EXPECT_EQ(find_sink("nope"), nullptr); }

}  // namespace
}  // namespace cbtest

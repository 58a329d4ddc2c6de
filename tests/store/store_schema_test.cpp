// Opening, migrations, refusals, statements and transactions.
#include "store_test_util.hpp"

#include <cudabridge/core/error.hpp>

#include <sys/stat.h>

#include <fstream>

using namespace cudabridge::core;
using namespace cb_store_test;

namespace {

constexpr int64_t cudabridge_application_id = 0x43554442;  // "CUDB", as the store writes it

const std::vector<std::string> v1_tables = {"devices",    "events",       "gpu_profiles", "logs",
                                            "parameters", "plugin_cache", "sessions",     "settings"};

// The v1 schema exactly as the first release wrote it, kept here on purpose: the test must not
// build the old file with the code under test.
const char* v1_schema = R"sql(
PRAGMA journal_mode=WAL;
BEGIN;
CREATE TABLE settings(scope TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  updated_ns INTEGER NOT NULL, PRIMARY KEY(scope, key));
CREATE TABLE parameters(name TEXT PRIMARY KEY, owner TEXT NOT NULL, type INTEGER NOT NULL,
  default_value TEXT NOT NULL, help TEXT NOT NULL, has_range INTEGER NOT NULL DEFAULT 0,
  min_value REAL, max_value REAL);
CREATE TABLE events(id INTEGER PRIMARY KEY, time_ns INTEGER NOT NULL, device TEXT,
  category TEXT NOT NULL, severity INTEGER NOT NULL, kind TEXT NOT NULL, message TEXT NOT NULL,
  data TEXT);
CREATE INDEX events_time ON events(time_ns);
CREATE TABLE logs(id INTEGER PRIMARY KEY, time_ns INTEGER NOT NULL, level INTEGER NOT NULL,
  category TEXT NOT NULL, thread_id INTEGER NOT NULL DEFAULT 0, device TEXT, message TEXT NOT NULL);
CREATE INDEX logs_time ON logs(time_ns);
CREATE TABLE plugin_cache(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  state TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', descriptors TEXT NOT NULL DEFAULT '[]',
  checked_ns INTEGER NOT NULL);
CREATE TABLE gpu_profiles(pci_device_id INTEGER PRIMARY KEY, name TEXT NOT NULL, data TEXT NOT NULL,
  source TEXT NOT NULL);
CREATE TABLE devices(unique_id TEXT PRIMARY KEY, name TEXT, vendor TEXT, first_seen_ns INTEGER,
  last_seen_ns INTEGER, policy TEXT NOT NULL DEFAULT 'manual', key BLOB, data TEXT);
CREATE TABLE sessions(id INTEGER PRIMARY KEY, device_id TEXT, started_ns INTEGER NOT NULL,
  ended_ns INTEGER, state TEXT NOT NULL, reason TEXT, data TEXT);
PRAGMA application_id = 1129661506;
PRAGMA user_version = 1;
COMMIT;
)sql";

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

template <typename F>
error expect_error(F&& f) {
    try {
        f();
    } catch (const error& e) {
        return e;
    }
    ADD_FAILURE() << "no core::error thrown";
    return error(CB_OK, "");
}

}  // namespace

TEST(StoreSchema, MigratesEmptyFileToCurrentVersion) {
    temp_dir dir;
    const auto file = dir.path() / "a" / "b" / "cudabridge.db";  // folders made on open
    {
        store s(file);
        EXPECT_EQ(s.user_version(), store::schema_version);
        EXPECT_EQ(s.user_version(), 4);
        auto tables = table_names(s);
        for (const auto& t : v1_tables) EXPECT_TRUE(contains(tables, t)) << t;
        EXPECT_TRUE(contains(tables, "settings_history"));
        EXPECT_TRUE(contains(tables, "benchmarks"));
        EXPECT_EQ(count_rows(s, "PRAGMA application_id"), cudabridge_application_id);
        auto mode = s.prepare("PRAGMA journal_mode");
        ASSERT_TRUE(mode.step());
        EXPECT_EQ(mode.column_text(0), "wal");
        EXPECT_EQ(count_rows(s, "PRAGMA foreign_keys"), 1);
        EXPECT_EQ(count_rows(s, "PRAGMA synchronous"), 1);  // NORMAL
        EXPECT_EQ(s.integrity_check(), "ok");
    }
    struct stat st {};
    ASSERT_EQ(::stat((dir.path() / "a").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0077, 0u) << "the database is private to its user";
    // Opening again is a no-op migration.
    store again(file, {.busy_timeout_ms = 1000, .read_only = false, .synchronous_full = true});
    EXPECT_EQ(again.user_version(), 4);
    EXPECT_EQ(count_rows(again, "PRAGMA synchronous"), 2);  // FULL
}

TEST(StoreSchema, MigratesVersion1FileKeepingRows) {
    temp_dir dir;
    raw_exec(dir.db(), v1_schema);
    raw_exec(dir.db(),
             "INSERT INTO settings VALUES('global', 'log.level', 'debug', 5);"
             "INSERT INTO settings VALUES('plugin:file', 'file.max_size', '1000', 6);"
             "INSERT INTO events(time_ns, device, category, severity, kind, message) "
             "VALUES(10, 'gpu0', 'link', 2, 'link.down', 'lost link');"
             "INSERT INTO events(time_ns, category, severity, kind, message, data) "
             "VALUES(11, 'core', 1, 'start', 'started', '{\"a\":1}');");
    ASSERT_EQ(raw_int(dir.db(), "PRAGMA user_version"), 1);

    store s(dir.db());
    EXPECT_EQ(s.user_version(), 4);
    auto tables = table_names(s);
    EXPECT_TRUE(contains(tables, "settings_history"));
    EXPECT_TRUE(contains(tables, "benchmarks"));
    EXPECT_EQ(get_setting(s, "global", "log.level"), "debug");
    EXPECT_EQ(get_setting(s, "plugin:file", "file.max_size"), "1000");
    auto events = query_events(s, {});
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, "start");
    EXPECT_EQ(events[0].data_json, "{\"a\":1}");
    EXPECT_EQ(events[1].device, "gpu0");
    EXPECT_EQ(events[1].message, "lost link");
    // The new tables work on the migrated file.
    set_setting(s, "global", "log.level", "info");
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM settings_history"), 1);
    EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(StoreSchema, MigratingToVersion3KeepsGpuProfilesWithAnEmptyKey) {
    temp_dir dir;
    raw_exec(dir.db(), v1_schema);
    raw_exec(dir.db(), "INSERT INTO gpu_profiles VALUES(11141, 'NVIDIA GeForce RTX 5090', '{}', 'import');");

    store s(dir.db());
    EXPECT_EQ(s.user_version(), store::schema_version);
    auto old_row = find_gpu_profile(s, 11141);
    ASSERT_TRUE(old_row);
    EXPECT_EQ(old_row->name, "NVIDIA GeForce RTX 5090");
    EXPECT_EQ(old_row->source, "import");
    EXPECT_EQ(old_row->key, "");
    EXPECT_FALSE(find_gpu_profile_by_key(s, ""));  // an empty key names no model
    // The new column works on the migrated file.
    put_gpu_profiles(s, {{.pci_device_id = 11141, .key = "rtx-5090", .name = "RTX 5090", .data = "{}", .source = "t"}});
    ASSERT_TRUE(find_gpu_profile_by_key(s, "rtx-5090"));
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM sqlite_schema WHERE name = 'gpu_profiles_key'"), 1);
    EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(StoreSchema, MigratingToVersion4KeepsParametersThatAcceptAnyValue) {
    temp_dir dir;
    raw_exec(dir.db(), v1_schema);
    raw_exec(dir.db(),
             "INSERT INTO parameters(name, owner, type, default_value, help) "
             "VALUES('usb4.max_payload', 'usb4', 2, '256', 'MPS');");
    store s(dir.db());
    auto old_row = find_parameter(s, "usb4.max_payload");
    ASSERT_TRUE(old_row);
    EXPECT_EQ(old_row->default_value, "256");
    EXPECT_EQ(old_row->choices, "");
    EXPECT_EQ(old_row->flags, 0u);
    // The new columns work on the migrated file.
    parameter_row p = *old_row;
    p.choices = "128,256,512";
    p.flags = 1;
    declare_parameter(s, p);
    auto row = find_parameter(s, "usb4.max_payload");
    ASSERT_TRUE(row);
    EXPECT_EQ(row->choices, "128,256,512");
    EXPECT_EQ(row->flags, 1u);
    EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(StoreSchema, RefusesNewerSchema) {
    temp_dir dir;
    raw_exec(dir.db(),
             "CREATE TABLE future(x); PRAGMA application_id = 1129661506; "
             "PRAGMA user_version = 99;");
    error e = expect_error([&] { store s(dir.db()); });
    EXPECT_EQ(e.status(), CB_ERR_UNSUPPORTED);
    std::string msg = e.what();
    EXPECT_NE(msg.find(dir.db().string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("99"), std::string::npos) << msg;
    EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
    EXPECT_EQ(raw_int(dir.db(), "PRAGMA user_version"), 99) << "a refused file is left alone";
}

TEST(StoreSchema, RefusesForeignApplicationId) {
    temp_dir dir;
    raw_exec(dir.db(), "PRAGMA application_id = 12345; CREATE TABLE theirs(x);");
    error e = expect_error([&] { store s(dir.db()); });
    EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
    std::string msg = e.what();
    EXPECT_NE(msg.find(dir.db().string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("not a CudaBridge database"), std::string::npos) << msg;
    EXPECT_EQ(raw_int(dir.db(), "SELECT count(*) FROM sqlite_schema WHERE name = 'settings'"), 0);
}

TEST(StoreSchema, RefusesUnmarkedDatabaseWithTables) {
    temp_dir dir;
    raw_exec(dir.db(), "CREATE TABLE theirs(x);");
    error e = expect_error([&] { store s(dir.db()); });
    EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("application_id"), std::string::npos) << e.what();
}

TEST(StoreSchema, RefusesFileThatIsNotSqlite) {
    temp_dir dir;
    std::ofstream(dir.db()) << "this is a text file, not a database, and it is long enough\n";
    error e = expect_error([&] { store s(dir.db()); });
    EXPECT_EQ(e.status(), CB_ERR_INTEGRITY);
    EXPECT_NE(std::string(e.what()).find(dir.db().string()), std::string::npos) << e.what();
}

TEST(StoreSchema, ReadOnlyOpen) {
    temp_dir dir;
    error missing = expect_error([&] { store s(dir.db(), {.read_only = true}); });
    EXPECT_EQ(missing.status(), CB_ERR_NOT_FOUND);
    {
        store s(dir.db());
        set_setting(s, "global", "k", "v");
    }
    store ro(dir.db(), {.read_only = true});
    EXPECT_EQ(get_setting(ro, "global", "k"), "v");
    EXPECT_THROW(set_setting(ro, "global", "k", "w"), error);
}

TEST(StoreSchema, ReadOnlyOpenOfOldSchemaIsRefused) {
    temp_dir dir;
    raw_exec(dir.db(), v1_schema);
    error e = expect_error([&] { store s(dir.db(), {.read_only = true}); });
    EXPECT_EQ(e.status(), CB_ERR_PERMISSION);
}

TEST(StoreStatement, BadSqlThrowsError) {
    temp_dir dir;
    store s(dir.db());
    error e = expect_error([&] { s.prepare("SELEC nonsense FROM nowhere"); });
    EXPECT_EQ(e.status(), CB_ERR_INTERNAL);
    EXPECT_NE(std::string(e.what()).find(dir.db().string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("syntax error"), std::string::npos) << e.what();
    EXPECT_THROW(s.prepare("SELECT * FROM no_such_table"), error);
    EXPECT_THROW(s.prepare("SELECT 1; SELECT 2"), error);  // one statement only
    EXPECT_THROW(s.prepare(""), error);
    EXPECT_THROW(s.exec("DROP TABLE no_such_table"), error);
    EXPECT_EQ(s.integrity_check(), "ok");  // and the store still works
}

TEST(StoreStatement, BindAndStepErrorsThrow) {
    temp_dir dir;
    store s(dir.db());
    EXPECT_THROW(s.prepare("SELECT ?1").bind(5, int64_t{1}), error);  // index out of range
    // NOT NULL violated: a constraint error, reported as an invalid argument.
    error e = expect_error([&] {
        s.prepare("INSERT INTO settings(scope, key, value, updated_ns) VALUES(?1, ?2, ?3, 0)")
            .bind(1, "global")
            .bind(2, "k")
            .bind(3, static_cast<const char*>(nullptr))
            .run();
    });
    EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
    // The cached statement is reset after the failure and works again.
    s.prepare("INSERT INTO settings(scope, key, value, updated_ns) VALUES(?1, ?2, ?3, 0)")
        .bind(1, "global")
        .bind(2, "k")
        .bind(3, "v")
        .run();
    EXPECT_EQ(get_setting(s, "global", "k"), "v");
}

TEST(StoreStatement, ValuesRoundTrip) {
    temp_dir dir;
    store s(dir.db());
    auto st = s.prepare("SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7");
    const uint8_t blob[] = {0, 1, 2, 255};
    st.bind(1, int64_t{-5}).bind(2, 2.5).bind(3, std::string_view("a\0b", 3)).bind(4, "");
    st.bind_null(5).bind_blob(6, blob, sizeof blob).bind(7, 42);  // plain int binds too
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.column_int(0), -5);
    EXPECT_DOUBLE_EQ(st.column_double(1), 2.5);
    EXPECT_EQ(st.column_text(2), std::string("a\0b", 3));
    EXPECT_FALSE(st.column_is_null(3)) << "an empty string is not NULL";
    EXPECT_TRUE(st.column_is_null(4));
    EXPECT_EQ(st.column_blob(5), std::vector<uint8_t>(blob, blob + 4));
    EXPECT_EQ(st.column_int(6), 42);
    EXPECT_FALSE(st.step());
}

TEST(StoreStatement, SameStatementTwiceWhileSteppingThrows) {
    temp_dir dir;
    store s(dir.db());
    add_event(s, {.category = "c", .kind = "k", .message = "m"});
    add_event(s, {.category = "c", .kind = "k", .message = "m"});
    auto outer = s.prepare("SELECT id FROM events");
    ASSERT_TRUE(outer.step());
    EXPECT_THROW(s.prepare("SELECT id FROM events"), error);
    EXPECT_TRUE(outer.step()) << "the first user's query was not disturbed";
    // Moved statements keep working; the moved-from one is inert.
    statement moved(std::move(outer));
    EXPECT_FALSE(moved.step());
    EXPECT_THROW(outer.step(), error);  // NOLINT(bugprone-use-after-move): checked on purpose
}

TEST(StoreTransaction, WriteCommitsAndRollsBack) {
    temp_dir dir;
    store s(dir.db());
    s.write([&] { set_setting(s, "global", "a", "1"); });
    EXPECT_THROW(s.write([&] {
        set_setting(s, "global", "b", "2");
        throw std::runtime_error("stop");
    }),
                 std::runtime_error);
    EXPECT_EQ(get_setting(s, "global", "a"), "1");
    EXPECT_FALSE(get_setting(s, "global", "b"));
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM settings_history"), 1);
}

TEST(StoreTransaction, NestedWriteJoinsOuter) {
    temp_dir dir;
    store s(dir.db());
    EXPECT_THROW(s.write([&] {
        s.write([&] { set_setting(s, "global", "inner", "1"); });
        throw std::runtime_error("outer fails after the inner body");
    }),
                 std::runtime_error);
    EXPECT_FALSE(get_setting(s, "global", "inner")) << "the outer rollback undoes the inner body";
    s.write([&] {
        s.write([&] { set_setting(s, "global", "inner", "2"); });
        s.read([&] { EXPECT_EQ(get_setting(s, "global", "inner"), "2"); });
    });
    EXPECT_EQ(get_setting(s, "global", "inner"), "2");
}

TEST(StoreTransaction, WriteInsideReadIsRefused) {
    temp_dir dir;
    store s(dir.db());
    EXPECT_THROW(s.read([&] { s.write([] {}); }), error);
    s.write([&] { set_setting(s, "global", "after", "ok"); });  // state recovered
    EXPECT_EQ(get_setting(s, "global", "after"), "ok");
}

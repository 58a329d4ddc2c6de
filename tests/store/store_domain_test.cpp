// The table functions: settings, parameters, events, logs, retention, plugin cache, benchmarks.
#include "store_test_util.hpp"

#include <cudabridge/core/error.hpp>

using namespace cudabridge::core;
using namespace cb_store_test;

namespace {

struct history_row {
    std::string scope, key, old_value, new_value, source;
    bool old_null = false, new_null = false;
};

std::vector<history_row> history(store& s) {
    std::vector<history_row> rows;
    auto st = s.prepare("SELECT scope, key, old_value, new_value, source FROM settings_history ORDER BY id");
    while (st.step())
        rows.push_back({st.column_text(0), st.column_text(1), st.column_text(2), st.column_text(3), st.column_text(4),
                        st.column_is_null(2), st.column_is_null(3)});
    return rows;
}

void add_log(store& s, int64_t time_ns, int level, const std::string& category, const std::string& message) {
    s.prepare(
         "INSERT INTO logs(time_ns, level, category, thread_id, device, message) "
         "VALUES(?1, ?2, ?3, 7, NULL, ?4)")
        .bind(1, time_ns)
        .bind(2, level)
        .bind(3, category)
        .bind(4, message)
        .run();
}

event_row event(int64_t time_ns, std::string device, std::string category, int severity, std::string kind) {
    event_row e;
    e.time_ns = time_ns;
    e.device = std::move(device);
    e.category = std::move(category);
    e.severity = severity;
    e.kind = std::move(kind);
    e.message = "message " + std::to_string(time_ns);
    return e;
}

std::vector<int64_t> ids_of(const auto& rows) {
    std::vector<int64_t> ids;
    for (const auto& r : rows) ids.push_back(r.id);
    return ids;
}

class StoreDomain : public ::testing::Test {
protected:
    temp_dir dir;
    store s{dir.db()};
};

}  // namespace

TEST_F(StoreDomain, SettingsRoundTripWithHistory) {
    EXPECT_FALSE(get_setting(s, "global", "log.level"));
    set_setting(s, "global", "log.level", "info");
    set_setting(s, "global", "log.level", "debug", "cli");
    set_setting(s, "plugin:file", "file.max_size", "");  // empty is a value, not "unset"
    EXPECT_EQ(get_setting(s, "global", "log.level"), "debug");
    EXPECT_EQ(get_setting(s, "plugin:file", "file.max_size"), "");
    EXPECT_FALSE(get_setting(s, "device:x", "log.level")) << "scopes are separate";

    auto all = list_settings(s);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].scope, "global");
    EXPECT_GT(all[0].updated_ns, 0);
    auto plugin = list_settings(s, "plugin:file");
    ASSERT_EQ(plugin.size(), 1u);
    EXPECT_EQ(plugin[0].key, "file.max_size");

    EXPECT_TRUE(erase_setting(s, "global", "log.level"));
    EXPECT_FALSE(erase_setting(s, "global", "log.level"));
    EXPECT_FALSE(get_setting(s, "global", "log.level"));

    auto h = history(s);
    ASSERT_EQ(h.size(), 4u);
    EXPECT_TRUE(h[0].old_null);
    EXPECT_EQ(h[0].new_value, "info");
    EXPECT_EQ(h[0].source, "api");
    EXPECT_EQ(h[1].old_value, "info");
    EXPECT_EQ(h[1].new_value, "debug");
    EXPECT_EQ(h[1].source, "cli");
    EXPECT_EQ(h[2].key, "file.max_size");
    EXPECT_FALSE(h[2].new_null);
    EXPECT_EQ(h[3].old_value, "debug");
    EXPECT_TRUE(h[3].new_null) << "an erase records a NULL new value";
}

TEST_F(StoreDomain, SettingsValuesAreNotSql) {
    const std::string nasty = "x'); DROP TABLE settings; --";
    set_setting(s, "global", nasty, nasty);
    EXPECT_EQ(get_setting(s, "global", nasty), nasty);
    EXPECT_EQ(list_settings(s).size(), 1u);
}

TEST_F(StoreDomain, Parameters) {
    parameter_row ranged{.name = "file.max_size",
                         .owner = "file",
                         .type = 2,
                         .default_value = "100",
                         .help = "bytes",
                         .has_range = true,
                         .min_value = 1,
                         .max_value = 1e9};
    parameter_row plain{.name = "log.overflow_policy",
                        .owner = "core",
                        .type = 4,
                        .default_value = "drop",
                        .help = "what to do when full"};
    declare_parameter(s, ranged);
    declare_parameter(s, plain);
    auto found = find_parameter(s, "file.max_size");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->owner, "file");
    EXPECT_EQ(found->type, 2);
    EXPECT_TRUE(found->has_range);
    EXPECT_DOUBLE_EQ(found->min_value, 1);
    EXPECT_DOUBLE_EQ(found->max_value, 1e9);
    auto p = find_parameter(s, "log.overflow_policy");
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->has_range);
    EXPECT_EQ(p->min_value, 0);
    EXPECT_FALSE(find_parameter(s, "nope"));

    ranged.help = "bytes per file";  // declaring again replaces
    ranged.has_range = false;
    declare_parameter(s, ranged);
    found = find_parameter(s, "file.max_size");
    EXPECT_EQ(found->help, "bytes per file");
    EXPECT_FALSE(found->has_range);
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM parameters WHERE min_value IS NULL"), 2);

    auto all = list_parameters(s);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].name, "file.max_size");
    EXPECT_EQ(all[1].name, "log.overflow_policy");
}

TEST_F(StoreDomain, EventsQueryFilters) {
    std::vector<int64_t> ids;
    ids.push_back(add_event(s, event(100, "gpu0", "link", 1, "link.up")));    // 1
    ids.push_back(add_event(s, event(200, "gpu1", "link", 3, "link.down")));  // 2
    ids.push_back(add_event(s, event(300, "", "core", 2, "start")));          // 3
    auto e4 = event(400, "gpu0", "thermal", 3, "throttle");
    e4.data_json = "{\"t\":91}";
    ids.push_back(add_event(s, e4));  // 4
    EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3, 4}));

    auto all = query_events(s, {});
    EXPECT_EQ(ids_of(all), (std::vector<int64_t>{4, 3, 2, 1})) << "newest first";
    EXPECT_EQ(all[0].data_json, "{\"t\":91}");
    EXPECT_EQ(all[0].time_ns, 400);
    EXPECT_EQ(all[0].message, "message 400");
    EXPECT_EQ(all[1].device, "");
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM events WHERE device IS NULL AND data IS NULL"), 1);

    EXPECT_EQ(ids_of(query_events(s, {.device = "gpu0"})), (std::vector<int64_t>{4, 1}));
    EXPECT_EQ(ids_of(query_events(s, {.category = "link"})), (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(ids_of(query_events(s, {.kind = "start"})), (std::vector<int64_t>{3}));
    EXPECT_EQ(ids_of(query_events(s, {.min_severity = 3})), (std::vector<int64_t>{4, 2}));
    EXPECT_EQ(ids_of(query_events(s, {.since_ns = 250})), (std::vector<int64_t>{4, 3}));
    EXPECT_EQ(ids_of(query_events(s, {.limit = 2})), (std::vector<int64_t>{4, 3}));
    EXPECT_EQ(ids_of(query_events(s, {.min_severity = 3, .device = "gpu1", .category = "link"})),
              (std::vector<int64_t>{2}));
    EXPECT_TRUE(query_events(s, {.device = "gpu9"}).empty());
    // A kind matches itself and its dotted children, and LIKE's wildcards in it are literal.
    EXPECT_EQ(ids_of(query_events(s, {.kind = "link"})), (std::vector<int64_t>{2, 1}));
    EXPECT_TRUE(query_events(s, {.kind = "lin"}).empty());
    EXPECT_TRUE(query_events(s, {.kind = "li_k"}).empty());
    EXPECT_TRUE(query_events(s, {.kind = "%"}).empty());

    // time 0 means "now".
    int64_t id = add_event(s, event(0, "", "core", 0, "now"));
    EXPECT_GT(query_events(s, {.kind = "now"}).at(0).time_ns, 1'000'000'000'000'000'000);
    EXPECT_EQ(id, 5);
}

TEST_F(StoreDomain, LogsQueryLimitOrderFilters) {
    for (int i = 1; i <= 10; ++i)
        add_log(s, i * 10, i % 3, i % 2 ? "plugin.file" : "core", "line " + std::to_string(i));
    add_log(s, 110, 2, "pluginx", "not a child of plugin");  // id 11

    auto newest = query_logs(s, {.limit = 3});
    EXPECT_EQ(ids_of(newest), (std::vector<int64_t>{9, 10, 11})) << "newest 3, oldest first";
    EXPECT_EQ(newest[0].message, "line 9");
    EXPECT_EQ(newest[0].thread_id, 7);
    EXPECT_EQ(newest[0].category, "plugin.file");
    EXPECT_EQ(newest[0].level, 0);
    EXPECT_EQ(newest[0].time_ns, 90);

    EXPECT_EQ(ids_of(query_logs(s, {.after_id = 8})), (std::vector<int64_t>{9, 10, 11}));
    EXPECT_EQ(ids_of(query_logs(s, {.after_id = 8, .limit = 1})), (std::vector<int64_t>{11}));
    EXPECT_EQ(ids_of(query_logs(s, {.min_level = 2})), (std::vector<int64_t>{2, 5, 8, 11}));
    EXPECT_EQ(ids_of(query_logs(s, {.category = "core"})), (std::vector<int64_t>{2, 4, 6, 8, 10}));
    EXPECT_EQ(ids_of(query_logs(s, {.category = "plugin"})), (std::vector<int64_t>{1, 3, 5, 7, 9}))
        << "a category matches its dotted children only";
    EXPECT_EQ(ids_of(query_logs(s, {.since_ns = 95, .category = "plugin.file"})), (std::vector<int64_t>{}));
    EXPECT_EQ(ids_of(query_logs(s, {.since_ns = 85})), (std::vector<int64_t>{9, 10, 11}));
    EXPECT_EQ(query_logs(s, {.limit = 0}).size(), 11u) << "limit 0 means no limit";
}

TEST_F(StoreDomain, RetentionDeletesOldestBeyondLimit) {
    for (int i = 0; i < 25; ++i) add_event(s, event(i + 1, "", "c", 0, "k"));
    for (int i = 0; i < 12; ++i) add_log(s, i + 1, 0, "c", "m");
    EXPECT_EQ(apply_retention(s), 0u) << "defaults keep far more rows";

    set_setting(s, "global", "store.events_max_rows", "10");
    set_setting(s, "global", "store.logs_max_rows", "5");
    EXPECT_EQ(apply_retention(s), 15u + 7u);
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM events"), 10);
    EXPECT_EQ(count_rows(s, "SELECT min(id) FROM events"), 16);
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM logs"), 5);
    EXPECT_EQ(count_rows(s, "SELECT min(id) FROM logs"), 8);
    EXPECT_EQ(apply_retention(s), 0u);

    // Junk, zero or negative limits fall back to the defaults instead of deleting everything.
    for (const char* junk : {"abc", "0", "-3", "10rows", ""}) {
        set_setting(s, "global", "store.events_max_rows", junk);
        EXPECT_EQ(apply_retention(s), 0u) << junk;
    }
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM events"), 10);
}

TEST_F(StoreDomain, PluginCache) {
    plugin_cache_row ok{.path = "/p/b.so",
                        .size = 10,
                        .mtime_ns = 20,
                        .state = "ok",
                        .reason = "",
                        .descriptors_json = "[{\"name\":\"b\"}]",
                        .checked_ns = 30};
    plugin_cache_row refused{.path = "/p/a.so",
                             .size = 1,
                             .mtime_ns = 2,
                             .state = "refused",
                             .reason = "world-writable",
                             .descriptors_json = "",
                             .checked_ns = 3};
    put_plugin_cache(s, ok);
    put_plugin_cache(s, refused);
    auto found = find_plugin_cache(s, "/p/b.so");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->size, 10);
    EXPECT_EQ(found->mtime_ns, 20);
    EXPECT_EQ(found->state, "ok");
    EXPECT_EQ(found->descriptors_json, "[{\"name\":\"b\"}]");
    EXPECT_EQ(found->checked_ns, 30);
    auto r = find_plugin_cache(s, "/p/a.so");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->reason, "world-writable");
    EXPECT_EQ(r->descriptors_json, "[]");
    EXPECT_FALSE(find_plugin_cache(s, "/p/c.so"));

    ok.size = 11;  // put again replaces
    put_plugin_cache(s, ok);
    EXPECT_EQ(find_plugin_cache(s, "/p/b.so")->size, 11);
    auto all = list_plugin_cache(s);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].path, "/p/a.so");
    EXPECT_EQ(all[1].path, "/p/b.so");

    erase_plugin_cache(s, "/p/a.so");
    erase_plugin_cache(s, "/p/never.so");
    EXPECT_FALSE(find_plugin_cache(s, "/p/a.so"));
    EXPECT_EQ(list_plugin_cache(s).size(), 1u);
}

TEST_F(StoreDomain, Benchmarks) {
    benchmark_row b{.time_ns = 5,
                    .name = "h2d",
                    .metric = "bandwidth",
                    .unit = "GB/s",
                    .value = 12.5,
                    .modeled = true,
                    .data_json = "{\"size\":1048576}"};
    int64_t first = add_benchmark(s, b);
    b.modeled = false;
    b.value = 11.0;
    b.data_json.clear();
    int64_t second = add_benchmark(s, b);
    add_benchmark(s, {.name = "d2h", .metric = "latency", .unit = "us", .value = 3});
    EXPECT_LT(first, second);

    auto h2d = query_benchmarks(s, "h2d");
    ASSERT_EQ(h2d.size(), 2u);
    EXPECT_EQ(h2d[0].id, second) << "newest first";
    EXPECT_FALSE(h2d[0].modeled);
    EXPECT_DOUBLE_EQ(h2d[0].value, 11.0);
    EXPECT_EQ(h2d[0].data_json, "");
    EXPECT_TRUE(h2d[1].modeled);
    EXPECT_EQ(h2d[1].time_ns, 5);
    EXPECT_EQ(h2d[1].metric, "bandwidth");
    EXPECT_EQ(h2d[1].unit, "GB/s");
    EXPECT_EQ(h2d[1].data_json, "{\"size\":1048576}");

    auto all = query_benchmarks(s);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].name, "d2h");
    EXPECT_GT(all[0].time_ns, 0) << "time 0 means now";
    EXPECT_EQ(query_benchmarks(s, {}, 1).size(), 1u);
}

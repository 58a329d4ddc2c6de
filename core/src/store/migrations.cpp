// The schema, as an ordered list of steps by PRAGMA user_version, and how a database is brought
// up to date: every missing step in one BEGIN IMMEDIATE transaction (SQLite DDL is transactional),
// so a crash or a second process never sees a half-migrated file.
#include "store_internal.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <array>

namespace cudabridge::core {

namespace store_detail {
namespace {

// v1: the first released schema. Never edit a released step; add a new one instead.
constexpr const char* schema_v1 = R"sql(
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
PRAGMA user_version = 1;
)sql";

// v2: who changed which setting, and benchmark results.
constexpr const char* schema_v2 = R"sql(
CREATE TABLE settings_history(id INTEGER PRIMARY KEY, time_ns INTEGER NOT NULL,
  scope TEXT NOT NULL, key TEXT NOT NULL, old_value TEXT, new_value TEXT, source TEXT NOT NULL);
CREATE INDEX settings_history_key ON settings_history(scope, key);
CREATE TABLE benchmarks(id INTEGER PRIMARY KEY, time_ns INTEGER NOT NULL, name TEXT NOT NULL,
  metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, modeled INTEGER NOT NULL, data TEXT);
CREATE INDEX benchmarks_name ON benchmarks(name, time_ns);
CREATE INDEX sessions_device ON sessions(device_id);
PRAGMA user_version = 2;
)sql";

// v3: a GPU model profile's short key ("rtx-5090"), the name fabric layouts use for a model.
constexpr const char* schema_v3 = R"sql(
ALTER TABLE gpu_profiles ADD COLUMN key TEXT NOT NULL DEFAULT '';
CREATE INDEX gpu_profiles_key ON gpu_profiles(key);
PRAGMA user_version = 3;
)sql";

// v4: what a parameter accepts besides its type and range (ABI 1.5's cb_param_decl); a plugin
// file's change time and SHA-256 when it was checked.
constexpr const char* schema_v4 = R"sql(
ALTER TABLE parameters ADD COLUMN choices TEXT NOT NULL DEFAULT '';
ALTER TABLE parameters ADD COLUMN flags INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plugin_cache ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plugin_cache ADD COLUMN sha256 TEXT NOT NULL DEFAULT '';
PRAGMA user_version = 4;
)sql";

constexpr std::array<migration_step, 4> steps{{{1, schema_v1}, {2, schema_v2}, {3, schema_v3}, {4, schema_v4}}};
static_assert(steps.back().to_version == store::schema_version,
              "the last migration step must reach store::schema_version");

}  // namespace

std::span<const migration_step> migration_steps() { return steps; }

}  // namespace store_detail

namespace {

struct file_identity {
    int64_t application_id = 0;
    int user_version = 0;
    bool has_objects = false;  // any table, index, view or trigger
};

file_identity read_identity_now(store& s) {
    file_identity id;
    {
        statement st = s.prepare("PRAGMA application_id");
        if (st.step()) id.application_id = st.column_int(0);
    }
    id.user_version = s.user_version();
    statement st = s.prepare("SELECT EXISTS(SELECT 1 FROM sqlite_schema)");
    id.has_objects = st.step() && st.column_int(0) != 0;
    return id;
}

// In one read transaction: another process may commit its migration between two statements.
file_identity read_identity(store& s) {
    file_identity id;
    s.read([&] { id = read_identity_now(s); });
    return id;
}

// Refuses files that are not ours, or are newer than this code: writing into them could damage
// another program's data or a newer CudaBridge's schema.
void check_identity(const store& s, const file_identity& id) {
    const std::string where = "store " + s.path().string() + ": ";
    if (id.application_id != 0 && id.application_id != store_detail::application_id)
        throw error(CB_ERR_INVALID_ARGUMENT,
                    where + "not a CudaBridge database (application_id " +
                        sdk::hex_text(static_cast<uint32_t>(id.application_id), 8) + ", expected " +
                        sdk::hex_text(static_cast<uint32_t>(store_detail::application_id), 8) + ")");
    if (id.user_version > store::schema_version)
        throw error(CB_ERR_UNSUPPORTED, where + "schema version " + std::to_string(id.user_version) +
                                            " is newer than this CudaBridge supports (" +
                                            std::to_string(store::schema_version) +
                                            "); use a newer CudaBridge or another database file");
    if (id.application_id == 0 && id.has_objects)
        throw error(CB_ERR_INVALID_ARGUMENT,
                    where + "not a CudaBridge database (it has tables but no CudaBridge application_id)");
}

bool up_to_date(const file_identity& id) {
    return id.application_id == store_detail::application_id && id.user_version == store::schema_version;
}

void apply_steps(store& s, int from_version) {
    for (const auto& step : store_detail::migration_steps())
        if (step.to_version > from_version) s.exec(step.sql);
    // A compile-time constant, not a value from outside; PRAGMA takes no bound parameters.
    static const std::string set_id = "PRAGMA application_id = " + std::to_string(store_detail::application_id);
    s.exec(set_id);
}

}  // namespace

void store::migrate() {
    file_identity id = read_identity(*this);
    check_identity(*this, id);
    if (up_to_date(id)) return;
    if (cache_->options.read_only)
        throw error(CB_ERR_PERMISSION, "store " + path_.string() + ": schema version " +
                                           std::to_string(id.user_version) +
                                           " needs migrating, which a read-only store cannot do");
    write([&] {
        // Another process may have migrated between the first look and our write lock.
        id = read_identity(*this);
        check_identity(*this, id);
        if (!up_to_date(id)) apply_steps(*this, id.user_version);
    });
}

}  // namespace cudabridge::core

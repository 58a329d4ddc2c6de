// The SQLite store: one database file shared by every CudaBridge process on the machine.
//
// WAL mode, a busy timeout, write transactions with BEGIN IMMEDIATE, schema migrations by
// PRAGMA user_version inside one transaction, prepared statements only. A store may be shared by
// threads: a transaction (write/read) or a statement holds the connection for its thread until
// it ends, so two threads never interleave on one connection.
#pragma once

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace cudabridge::core {

// A prepared statement, reset and cleared for reuse when it goes out of scope. It holds its
// store's connection for the calling thread while it lives.
class statement {
public:
    statement(sqlite3* db, sqlite3_stmt* stmt, std::unique_lock<std::recursive_mutex> use) noexcept
        : db_(db), stmt_(stmt), use_(std::move(use)) {}
    statement(statement&&) noexcept;
    statement& operator=(statement&&) = delete;
    statement(const statement&) = delete;
    ~statement();

    // Binders use 1-based positions, as SQLite does; each returns *this for chaining.
    statement& bind(int index, int64_t value);
    statement& bind(int index, double value);
    statement& bind(int index, std::string_view value);
    statement& bind(int index, const char* value);  // NULL binds SQL NULL
    statement& bind_null(int index);
    statement& bind_blob(int index, const void* data, size_t size);
    // Other integer types (int, size_t, bool, ...) bind as int64_t; without this, bind(1, 5)
    // would be ambiguous between the int64_t and double overloads.
    template <std::integral T>
    statement& bind(int index, T value) {
        return bind(index, static_cast<int64_t>(value));
    }

    // Steps once: true when a row is available, false when done. Throws core::error.
    bool step();
    // Runs to completion (for statements without result rows).
    void run();

    int64_t column_int(int index) const;
    double column_double(int index) const;
    std::string column_text(int index) const;
    std::vector<uint8_t> column_blob(int index) const;
    bool column_is_null(int index) const;

private:
    sqlite3* db_;
    sqlite3_stmt* stmt_;
    std::unique_lock<std::recursive_mutex> use_;  // released after the reset in ~statement
};

struct store_options {
    int busy_timeout_ms = 10000;
    bool read_only = false;
    bool synchronous_full = false;  // PRAGMA synchronous=FULL instead of NORMAL
};

class store {
public:
    // The newest schema this code knows; databases newer than this are refused.
    static constexpr int schema_version = 4;

    // Opens (creating folders and the file as needed) and migrates. Throws core::error with the
    // path and SQLite's message on failure.
    explicit store(const std::filesystem::path& path, store_options options = {});
    ~store();
    store(const store&) = delete;
    store& operator=(const store&) = delete;

    const std::filesystem::path& path() const noexcept { return path_; }
    sqlite3* handle() const noexcept { return db_; }

    // A cached prepared statement for this SQL text.
    statement prepare(std::string_view sql);
    // Runs SQL without parameters (DDL, pragmas).
    void exec(std::string_view sql);

    // Runs body inside BEGIN IMMEDIATE ... COMMIT; rolls back and rethrows on exception.
    void write(const std::function<void()>& body);
    // Runs body inside a read transaction (one consistent snapshot).
    void read(const std::function<void()>& body);

    int user_version();
    // "ok" or the problems PRAGMA integrity_check reports.
    std::string integrity_check();
    int64_t last_insert_rowid() const;

private:
    void migrate();

    std::filesystem::path path_;
    sqlite3* db_ = nullptr;
    struct statement_cache;
    std::unique_ptr<statement_cache> cache_;
};

// ---- settings --------------------------------------------------------------------------------
// Scopes: "global", "plugin:<name>", "device:<id>".
std::optional<std::string> get_setting(store& s, std::string_view scope, std::string_view key);
// Writes the value and a row in settings_history (old value, new value, source).
void set_setting(store& s, std::string_view scope, std::string_view key, std::string_view value,
                 std::string_view source = "api");
bool erase_setting(store& s, std::string_view scope, std::string_view key);
struct setting_row {
    std::string scope, key, value;
    int64_t updated_ns = 0;
};
std::vector<setting_row> list_settings(store& s, std::string_view scope = {});

// Declared parameters (the metadata plugins and the core give for a settings key).
struct parameter_row {
    std::string name;   // full key, e.g. "file.max_size" or "log.overflow_policy"
    std::string owner;  // plugin name or "core"
    int type = 0;       // cb_param_type
    std::string default_value;
    std::string help;
    bool has_range = false;
    double min_value = 0, max_value = 0;
    std::string choices;  // the accepted values, comma-separated; empty: any
    uint32_t flags = 0;   // CB_PARAM_FLAG_* (a folder)
};
void declare_parameter(store& s, const parameter_row& p);
std::optional<parameter_row> find_parameter(store& s, std::string_view name);
std::vector<parameter_row> list_parameters(store& s);

// ---- events ----------------------------------------------------------------------------------
struct event_row {
    int64_t id = 0;
    int64_t time_ns = 0;  // wall clock
    std::string device;   // may be empty
    std::string category;
    int severity = 0;  // cb_severity
    std::string kind;
    std::string message;
    std::string data_json;  // may be empty
};
int64_t add_event(store& s, const event_row& e);
struct event_query {
    int64_t since_ns = 0;
    int min_severity = 0;
    std::string device, category, kind;  // empty = any; kind "connect" also matches "connect.*"
    size_t limit = 100;                  // newest first
};
std::vector<event_row> query_events(store& s, const event_query& q);

// ---- logs (written by the SQLite log sink, read by `cudabridge-cli log`) -----------------------
struct log_row {
    int64_t id = 0;
    int64_t time_ns = 0;
    int level = 0;  // cb_log_level
    std::string category;
    int64_t thread_id = 0;
    std::string device;
    std::string message;
};
struct log_query {
    int64_t since_ns = 0;
    int64_t after_id = 0;  // for --follow
    int min_level = 0;
    std::string category;  // empty = any
    size_t limit = 50;     // the newest `limit` rows, returned oldest first
};
std::vector<log_row> query_logs(store& s, const log_query& q);

// Deletes the oldest events and logs beyond the retention settings
// (store.events_max_rows, store.logs_max_rows). Returns rows deleted.
size_t apply_retention(store& s);

// ---- plugin cache ----------------------------------------------------------------------------
struct plugin_cache_row {
    std::string path;  // canonical
    int64_t size = 0;
    int64_t mtime_ns = 0;
    std::string state;             // "ok" or "refused"
    std::string reason;            // why refused; empty when ok
    std::string descriptors_json;  // array of {name, kind, version, license, description, abi}
    int64_t checked_ns = 0;
    int64_t ctime_ns = 0;  // inode change time: every write changes it, and no user can set it
    std::string sha256;    // of the whole file when it was checked (hex)
};
std::optional<plugin_cache_row> find_plugin_cache(store& s, std::string_view path);
void put_plugin_cache(store& s, const plugin_cache_row& row);
std::vector<plugin_cache_row> list_plugin_cache(store& s);
void erase_plugin_cache(store& s, std::string_view path);

// ---- benchmark results -----------------------------------------------------------------------
struct benchmark_row {
    int64_t id = 0;
    int64_t time_ns = 0;
    std::string name, metric, unit;
    double value = 0;
    bool modeled = false;  // modeled by the simulator (true) or measured on hardware (false)
    std::string data_json;
};
int64_t add_benchmark(store& s, const benchmark_row& b);
std::vector<benchmark_row> query_benchmarks(store& s, std::string_view name = {}, size_t limit = 100);

// ---- GPU model profiles ----------------------------------------------------------------------
// One row per model, keyed by PCI device id; `data` is the whole profile as its GPU family wrote
// it (JSON, with each figure's sources). The host fills them (host::seed_gpu_profiles).
struct gpu_profile_row {
    int pci_device_id = 0;  // 0x0001..0xfffe
    std::string key;        // short name, "rtx-5090"
    std::string name;       // "NVIDIA GeForce RTX 5090"
    std::string data;       // the profile, JSON
    std::string source;     // who supplied it, e.g. "plugin gpu-nvidia"
};
// Inserts or replaces every row (by pci_device_id) in one write transaction: all or none.
// Throws core::error(CB_ERR_INVALID_ARGUMENT) for an id outside 0x0001..0xfffe.
void put_gpu_profiles(store& s, const std::vector<gpu_profile_row>& rows);
// Every stored profile, by PCI device id.
std::vector<gpu_profile_row> list_gpu_profiles(store& s);
std::optional<gpu_profile_row> find_gpu_profile(store& s, int pci_device_id);
// The profile with this key (the name a simulated fabric layout uses for a GPU model).
std::optional<gpu_profile_row> find_gpu_profile_by_key(store& s, std::string_view key);

// ---- known devices (boltctl's device database) ----------------------------------------------
// One row per device ever seen, keyed by its USB4/Thunderbolt unique_id.
struct known_device_row {
    std::string unique_id, name, vendor;
    int64_t first_seen_ns = 0, last_seen_ns = 0;  // wall clock
    std::string policy = "manual";                // "auto" (connect when seen) | "manual" (connect when asked)
    std::vector<uint8_t> key;                     // 32-byte secure-connect key once enrolled; empty otherwise
    std::string data_json;                        // may be empty
};
// Upsert on unique_id: a new device gets first_seen = last_seen = now and policy "manual"; a known
// one keeps first_seen, policy and key, and takes the new name, vendor and last_seen = now, and
// data_json unless it is empty (empty keeps the stored data). Returns the row as stored.
// Throws core::error(CB_ERR_INVALID_ARGUMENT) for an empty unique_id.
known_device_row remember_device(store& s, std::string_view unique_id, std::string_view name, std::string_view vendor,
                                 std::string_view data_json = {});
std::optional<known_device_row> find_known_device(store& s, std::string_view unique_id);
// Every known device, oldest first_seen first.
std::vector<known_device_row> list_known_devices(store& s);
// Drops the row and its key (its sessions stay, as history); false when unknown.
bool forget_device(store& s, std::string_view unique_id);
// Throws core::error(CB_ERR_INVALID_ARGUMENT) for a policy other than "auto"/"manual" or an
// unknown device.
void set_device_policy(store& s, std::string_view unique_id, std::string_view policy);
// The key must be 32 bytes, or empty to clear it (CB_ERR_INVALID_ARGUMENT otherwise); an unknown
// device throws core::error(CB_ERR_NOT_FOUND).
void set_device_key(store& s, std::string_view unique_id, const std::vector<uint8_t>& key);

// ---- connection sessions ---------------------------------------------------------------------
// One row per connection to a device, from the connect attempt to its end.
struct session_row {
    int64_t id = 0;
    std::string device_id;
    int64_t started_ns = 0;           // wall clock
    std::optional<int64_t> ended_ns;  // empty while open
    std::string state;                // "connected", "disconnected", "failed", "lost", "refused"
    std::string reason;               // may be empty
    std::string data_json;            // may be empty
};
// Opens a session in state "connected"; returns its id. Throws core::error(CB_ERR_INVALID_ARGUMENT)
// for an empty device_id.
int64_t begin_session(store& s, std::string_view device_id, std::string_view data_json = {});
// Changes an open session's state and reason; an ended session is final and stays as it is.
// Throws core::error: CB_ERR_INVALID_ARGUMENT for an unknown state, CB_ERR_NOT_FOUND for an
// unknown id.
void update_session(store& s, int64_t id, std::string_view state, std::string_view reason);
// Ends a session: ended_ns = now (never before started_ns), with its final state (any state but
// "connected") and reason. Ending twice keeps the first end. Same errors as update_session.
void end_session(store& s, int64_t id, std::string_view state, std::string_view reason);
std::optional<session_row> find_session(store& s, int64_t id);
// The device's newest session that has not ended.
std::optional<session_row> open_session(store& s, std::string_view device_id);
// Newest first (by id, i.e. by commit order); device_id empty = every device; limit 0 = no limit.
std::vector<session_row> list_sessions(store& s, std::string_view device_id = {}, size_t limit = 100);

}  // namespace cudabridge::core

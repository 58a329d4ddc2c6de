#include "sqlite_sink.hpp"

#include "../support/record_fields.hpp"
#include "../support/sink_params.hpp"

#include <sqlite3.h>

#include <cerrno>
#include <cstring>

#include <sys/stat.h>

namespace cudabridge::plugins::logging {

namespace {
constexpr const char* insert_sql =
    "INSERT INTO logs(time_ns, level, category, thread_id, device, message) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6)";

cb_status status_from_sqlite(int rc) noexcept {
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return CB_ERR_BUSY;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
        return CB_ERR_PERMISSION;
    case SQLITE_CANTOPEN:
    case SQLITE_NOTFOUND:
        return CB_ERR_NOT_FOUND;
    case SQLITE_NOMEM:
        return CB_ERR_OUT_OF_MEMORY;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return CB_ERR_INTEGRITY;
    default:
        return CB_ERR_INTERNAL;
    }
}
}  // namespace

sqlite_sink::sqlite_sink(const sdk::host& h, const sdk::config& c) : logsink(h) {
    sink_params p(h, c, identity.name);
    p.declare_text("path", h.path(CB_PATH_DATABASE).value_or(""),
                   "database file holding the logs table; default: the CudaBridge database");
    p.declare_int("busy_timeout_ms", 10000, 0, 600000,
                  "how long a write waits for another process's lock on the database");
    path_ = p.text("path");
    const long long busy_ms = p.integer("busy_timeout_ms");
    if (path_.empty()) {
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT,
                                "sqlite sink: no database path (set path=... or give the host one)");
    }

    // The host creates and migrates the database; never create an empty one here.
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) {
        const int err = errno;
        throw sdk::status_error(err == ENOENT ? CB_ERR_NOT_FOUND : CB_ERR_PERMISSION,
                                "sqlite sink: database '" + path_ + "' is not reachable: " + std::strerror(err) +
                                    " (the host creates and migrates it before creating sinks)");
    }

    try {
        const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
        if (rc != SQLITE_OK) fail(rc, "open");
        sqlite3_extended_result_codes(db_, 1);
        sqlite3_busy_timeout(db_, static_cast<int>(busy_ms));
        exec("PRAGMA journal_mode=WAL", "switch to WAL");
        exec("PRAGMA synchronous=NORMAL", "set synchronous=NORMAL");

        sqlite3_stmt* probe =
            prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='logs'", "look for logs");
        const int rc2 = sqlite3_step(probe);
        sqlite3_finalize(probe);
        if (rc2 != SQLITE_ROW) {
            if (rc2 != SQLITE_DONE) fail(rc2, "look for the logs table");
            throw sdk::status_error(CB_ERR_NOT_FOUND,
                                    "sqlite sink: database '" + path_ +
                                        "' has no logs table (the host migrates the database before creating sinks; "
                                        "run cudabridge-cli once or pass --db with a migrated database)");
        }
        insert_ = prepare(insert_sql, "prepare the insert into logs (schema mismatch?)");
        begin_ = prepare("BEGIN IMMEDIATE", "prepare BEGIN");
        commit_ = prepare("COMMIT", "prepare COMMIT");
        rollback_ = prepare("ROLLBACK", "prepare ROLLBACK");
    } catch (...) {
        release();
        throw;
    }
}

sqlite_sink::~sqlite_sink() { release(); }

void sqlite_sink::fail(int rc, const std::string& action) const {
    const char* detail = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    throw sdk::status_error(status_from_sqlite(rc), "sqlite sink: cannot " + action + " on '" + path_ + "': " + detail);
}

void sqlite_sink::exec(const char* sql, const std::string& action) {
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(rc, action);
}

sqlite3_stmt* sqlite_sink::prepare(const char* sql, const std::string& action) {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) fail(rc, action);
    return stmt;
}

void sqlite_sink::step_done(sqlite3_stmt* stmt, const std::string& action) {
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE) fail(rc, action);
}

cb_status sqlite_sink::write(const cb_log_record& record) { return write_batch(&record, 1); }

cb_status sqlite_sink::write_batch(const cb_log_record* records, size_t count) {
    std::lock_guard lock(mutex_);
    if (db_ == nullptr) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "sqlite sink is closed");
    if (count == 0) return CB_OK;

    step_done(begin_, "begin a transaction");
    try {
        for (size_t i = 0; i < count; ++i) {
            const cb_log_record& r = records[i];
            const std::string_view category = category_of(r);
            const std::string_view device = device_of(r);
            const std::string_view message = message_of(r);
            sqlite3_bind_int64(insert_, 1, time_of(r));
            sqlite3_bind_int(insert_, 2, r.level);
            sqlite3_bind_text(insert_, 3, category.data(), static_cast<int>(category.size()), SQLITE_STATIC);
            sqlite3_bind_int64(insert_, 4, static_cast<sqlite3_int64>(r.thread_id));
            if (r.device == nullptr) {
                sqlite3_bind_null(insert_, 5);
            } else {
                sqlite3_bind_text(insert_, 5, device.data(), static_cast<int>(device.size()), SQLITE_STATIC);
            }
            sqlite3_bind_text64(insert_, 6, message.data(), message.size(), SQLITE_STATIC, SQLITE_UTF8);
            step_done(insert_, "insert into logs");
        }
        step_done(commit_, "commit");
    } catch (...) {
        sqlite3_step(rollback_);
        sqlite3_reset(rollback_);
        throw;
    }
    return CB_OK;
}

cb_status sqlite_sink::flush() {
    // Every batch is committed before write_batch returns: nothing is pending here.
    std::lock_guard lock(mutex_);
    if (db_ == nullptr) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "sqlite sink is closed");
    return CB_OK;
}

void sqlite_sink::close() {
    std::lock_guard lock(mutex_);
    release();
}

void sqlite_sink::release() noexcept {
    for (sqlite3_stmt** s : {&insert_, &begin_, &commit_, &rollback_}) {
        sqlite3_finalize(*s);
        *s = nullptr;
    }
    if (db_ != nullptr) {
        sqlite3_close_v2(db_);
        db_ = nullptr;
    }
}

}  // namespace cudabridge::plugins::logging

// SQLite result codes to core::error: every failure names the file and SQLite's message.
#include "store_internal.hpp"

namespace cudabridge::core::store_detail {

cb_status status_from_sqlite(int rc) noexcept {
    switch (rc & 0xff) {  // the primary code; extended codes keep it in the low byte
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return CB_ERR_BUSY;
    case SQLITE_NOMEM:
        return CB_ERR_OUT_OF_MEMORY;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return CB_ERR_INTEGRITY;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
    case SQLITE_CANTOPEN:
        return CB_ERR_PERMISSION;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
    case SQLITE_TOOBIG:
        return CB_ERR_INVALID_ARGUMENT;
    default:
        return CB_ERR_INTERNAL;  // SQLITE_ERROR (bad SQL), IOERR, FULL, ...
    }
}

std::string database_path(sqlite3* db) {
    const char* name = db ? sqlite3_db_filename(db, "main") : nullptr;
    return (name && *name) ? name : ":memory:";
}

[[noreturn]] void throw_sqlite(const std::filesystem::path& path, sqlite3* db, int rc, std::string_view what) {
    // sqlite3_errmsg has the detail ("no such table: x"); errstr is the fallback without a handle.
    const char* detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    std::string msg = "store " + path.string() + ": " + std::string(what) + ": " + detail;
    if (db && sqlite3_errstr(rc) != std::string_view(detail)) msg += std::string(" (") + sqlite3_errstr(rc) + ")";
    throw error(status_from_sqlite(rc), msg);
}

[[noreturn]] void throw_sqlite(sqlite3* db, int rc, std::string_view what) {
    throw_sqlite(database_path(db), db, rc, what);
}

}  // namespace cudabridge::core::store_detail

// Private helpers shared by the store's source files (not installed, not part of the API).
#pragma once

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/store.hpp>

#include <sqlite3.h>

#include <chrono>
#include <map>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::core {

// The store's private state: the prepared statements by SQL text, the transaction depth, and
// the lock that gives one thread at a time the connection (opened SQLITE_OPEN_NOMUTEX).
struct store::statement_cache {
    std::recursive_mutex use;
    std::map<std::string, sqlite3_stmt*, std::less<>> statements;
    store_options options;
    int depth = 0;         // nesting of write()/read() bodies now running
    bool writing = false;  // the outer transaction is a write (BEGIN IMMEDIATE)

    statement_cache() = default;
    statement_cache(const statement_cache&) = delete;
    statement_cache& operator=(const statement_cache&) = delete;
    ~statement_cache() {
        for (auto& entry : statements) sqlite3_finalize(entry.second);
    }
};

}  // namespace cudabridge::core

namespace cudabridge::core::store_detail {

// "CUDB": marks the file as CudaBridge's in the SQLite header (PRAGMA application_id).
inline constexpr int32_t application_id = 0x43554442;

// Maps a SQLite result code (primary or extended) to the closest cb_status.
cb_status status_from_sqlite(int rc) noexcept;

// The file name SQLite has for the main database of db ("" for in-memory).
std::string database_path(sqlite3* db);

// Throws core::error naming the database file, what failed, and SQLite's own message.
[[noreturn]] void throw_sqlite(sqlite3* db, int rc, std::string_view what);
[[noreturn]] void throw_sqlite(const std::filesystem::path& path, sqlite3* db, int rc, std::string_view what);

// Wall clock, ns since the Unix epoch: rows are read by people and by other processes.
inline int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Empty optional strings are stored as SQL NULL so "no device" is not an empty-string device.
inline void bind_optional(statement& st, int index, std::string_view value) {
    if (value.empty())
        st.bind_null(index);
    else
        st.bind(index, value);
}

// Every row a statement steps to, each read by `from(st)`.
template <class Read>
auto all_rows(statement st, Read from) {
    std::vector<decltype(from(st))> rows;
    while (st.step()) rows.push_back(from(st));
    return rows;
}

// The row `sql` (with ?1 = key) finds, read by `from(st)`, or nullopt when there is none.
template <class Key, class Read>
auto find_row(store& s, const char* sql, const Key& key, Read from) {
    statement st = s.prepare(sql);
    st.bind(1, key);
    using row = decltype(from(st));
    return st.step() ? std::optional<row>(from(st)) : std::nullopt;
}

// LIMIT for a size_t row count: 0 means no limit (-1 in SQLite).
inline int64_t sql_limit(size_t limit) {
    if (limit == 0 || limit > static_cast<size_t>(INT64_MAX)) return -1;
    return static_cast<int64_t>(limit);
}

// One schema step: run `sql` on a database at version to_version - 1.
struct migration_step {
    int to_version;
    const char* sql;
};
// The ordered steps v0->v1, v1->v2, ...; the last one's to_version is store::schema_version.
std::span<const migration_step> migration_steps();

}  // namespace cudabridge::core::store_detail

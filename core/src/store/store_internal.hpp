// Private helpers shared by the store's source files (not installed, not part of the API).
#pragma once

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/store.hpp>

#include <sqlite3.h>

#include <chrono>
#include <concepts>
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

// Reading a row: column i goes into the i-th field, read as the field's type, so a row mapper is
// the SELECT's column list written once more as fields.
inline void read_column(const statement& st, int index, std::string& field) { field = st.column_text(index); }
inline void read_column(const statement& st, int index, std::vector<uint8_t>& field) { field = st.column_blob(index); }
inline void read_column(const statement& st, int index, double& field) { field = st.column_double(index); }
inline void read_column(const statement& st, int index, bool& field) { field = st.column_int(index) != 0; }
template <std::integral T>
void read_column(const statement& st, int index, T& field) {
    field = static_cast<T>(st.column_int(index));
}
inline void read_column(const statement& st, int index, std::optional<int64_t>& field) {
    field = st.column_is_null(index) ? std::nullopt : std::optional<int64_t>(st.column_int(index));
}
template <class... Field>
void read_columns(const statement& st, Field&... fields) {
    int index = 0;
    (read_column(st, index++, fields), ...);
}

// Binding a row: the values go to ?1, ?2, ... in order. A text wrapped in or_null binds SQL NULL
// when empty, so "no device" is not an empty-string device.
struct or_null {
    std::string_view text;
};
inline void bind_value(statement& st, int index, or_null value) {
    if (value.text.empty())
        st.bind_null(index);
    else
        st.bind(index, value.text);
}
template <class Value>
void bind_value(statement& st, int index, const Value& value) {
    st.bind(index, value);
}
template <class... Value>
statement& bind_values(statement& st, const Value&... values) {
    int index = 1;
    (bind_value(st, index++, values), ...);
    return st;
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

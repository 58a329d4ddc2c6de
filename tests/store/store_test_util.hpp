// Helpers for the store tests: a private temporary folder and raw SQLite access.
#pragma once

#include "temp_dir.hpp"

#include <cudabridge/core/store.hpp>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace cb_store_test {

// The suites' shared temporary folder, seen as a filesystem path, with the store file inside it.
struct temp_dir : cudabridge::test::temp_dir {
    std::filesystem::path path() const { return cudabridge::test::temp_dir::path(); }
    std::filesystem::path db() const { return path() / "cudabridge.db"; }
};

// Runs SQL on a file with plain sqlite3, outside the store (to build old or foreign files).
inline void raw_exec(const std::filesystem::path& file, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    std::string message = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << message;
}

inline int64_t raw_int(const std::filesystem::path& file, const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_stmt* st = nullptr;
    int64_t value = -1;
    if (sqlite3_open(file.c_str(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        value = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return value;
}

inline std::vector<std::string> table_names(cudabridge::core::store& s) {
    std::vector<std::string> names;
    auto st = s.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name");
    while (st.step()) names.push_back(st.column_text(0));
    return names;
}

inline int64_t count_rows(cudabridge::core::store& s, const char* sql) {
    auto st = s.prepare(sql);
    return st.step() ? st.column_int(0) : -1;
}

}  // namespace cb_store_test

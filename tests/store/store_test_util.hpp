// Helpers for the store tests: a private temporary folder and raw SQLite access.
#pragma once

#include <cudabridge/core/store.hpp>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace cb_store_test {

// mkdtemp under /tmp, removed with everything in it when the test ends.
class temp_dir {
public:
    temp_dir() {
        std::string pattern = "/tmp/cb_store_test_XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path db() const { return path_ / "cudabridge.db"; }

private:
    std::filesystem::path path_;
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
        sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
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

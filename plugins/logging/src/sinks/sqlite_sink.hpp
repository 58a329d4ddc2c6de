// sqlite: records as rows of the `logs` table of the CudaBridge database, which
// `cudabridge-cli log` queries. The host creates and migrates the table; this sink only inserts.
#pragma once

#include <cudabridge/cpp/plugin.hpp>

#include <mutex>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace cudabridge::plugins::logging {

class sqlite_sink final : public sdk::logsink {
public:
    static constexpr sdk::plugin_identity identity{
        "sqlite", CB_MAKE_VERSION(1, 0, 0), "MIT",
        "records into the logs table of the CudaBridge database (WAL, one transaction per batch)"};

    sqlite_sink(const sdk::host& h, const sdk::config& c);
    ~sqlite_sink() override;

    cb_status write(const cb_log_record& record) override;
    cb_status write_batch(const cb_log_record* records, size_t count) override;
    cb_status flush() override;
    void close() override;

private:
    [[noreturn]] void fail(int rc, const std::string& action) const;
    void exec(const char* sql, const std::string& action);
    sqlite3_stmt* prepare(const char* sql, const std::string& action);
    void step_done(sqlite3_stmt* stmt, const std::string& action);
    void release() noexcept;

    std::mutex mutex_;
    std::string path_;
    sqlite3* db_ = nullptr;
    sqlite3_stmt* insert_ = nullptr;
    sqlite3_stmt* begin_ = nullptr;
    sqlite3_stmt* commit_ = nullptr;
    sqlite3_stmt* rollback_ = nullptr;
};

}  // namespace cudabridge::plugins::logging

// bench_log_sinks [records]: records per second through the asynchronous front end into the
// rotating-file and SQLite sink plugins, each next to a reference run in the same process:
//   file    front end -> file sink     vs  fwrite of the same formatted lines to one file
//   sqlite  front end -> sqlite sink   vs  direct sqlite3 inserts, 1024 per transaction, into
//                                          the same logs table
// Goal: >= 100,000 records/s into SQLite. It checks that every record arrived and asserts no
// timing (ctest runs it with a small count).
#include <cudabridge/core/context.hpp>
#include <cudabridge/core/store.hpp>

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace core = cudabridge::core;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

std::string message(long i) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "GPU %ld initialized: NVIDIA GeForce RTX 5090 (32607 MiB VRAM)", i % 8);
    return buf;
}

// Logs `n` records through a context that runs only `sink`; returns records/s.
double through_front_end(const fs::path& dir, const std::string& sink, long n) {
    core::context_options o;
    o.database = dir / (sink + ".db");
    o.log_sinks = std::vector<core::sink_spec>{{sink, {{"dir", (dir / "logs").string()}}}};
    core::context ctx(o);
    if (!ctx.sink_failures().empty()) {
        std::fprintf(stderr, "sink failed: %s\n", ctx.sink_failures().front().c_str());
        std::exit(1);
    }
    const int cat = core::log::category_id("DRIVER");
    const auto t0 = clock_type::now();
    for (long i = 0; i < n; ++i) ctx.log().log(CB_LOG_INFO, cat, message(i));
    ctx.log().flush();
    const double rate = static_cast<double>(n) / seconds_since(t0);
    if (sink == "sqlite") {
        core::log_query q;
        q.limit = 0;
        const size_t rows = core::query_logs(ctx.db(), q).size();
        if (rows != static_cast<size_t>(n)) {
            std::fprintf(stderr, "sqlite sink stored %zu of %ld records\n", rows, n);
            std::exit(1);
        }
    }
    return rate;
}

double reference_fwrite(const fs::path& dir, long n) {
    std::FILE* f = std::fopen((dir / "reference.log").c_str(), "w");
    const auto t0 = clock_type::now();
    for (long i = 0; i < n; ++i)
        std::fprintf(f, "2026-11-29 17:42:23.123456 [INFO ] [DRIVER] [t:1234] %s\n", message(i).c_str());
    std::fflush(f);
    const double rate = static_cast<double>(n) / seconds_since(t0);
    std::fclose(f);
    return rate;
}

double reference_sqlite(const fs::path& dir, long n) {
    // Same schema and pragmas as the store; only the front end and the plugin are left out.
    { core::store s(dir / "reference.db"); }
    sqlite3* db = nullptr;
    sqlite3_open((dir / "reference.db").c_str(), &db);
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db,
                       "INSERT INTO logs(time_ns, level, category, thread_id, device, message) "
                       "VALUES(?,?,?,?,?,?)",
                       -1, &st, nullptr);
    const auto t0 = clock_type::now();
    for (long i = 0; i < n;) {
        sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
        for (long j = 0; j < 1024 && i < n; ++j, ++i) {
            const std::string m = message(i);
            sqlite3_bind_int64(st, 1, 1764438143000000000LL + i);
            sqlite3_bind_int(st, 2, CB_LOG_INFO);
            sqlite3_bind_text(st, 3, "DRIVER", -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 4, 1234);
            sqlite3_bind_null(st, 5);
            sqlite3_bind_text(st, 6, m.c_str(), static_cast<int>(m.size()), SQLITE_TRANSIENT);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    }
    const double rate = static_cast<double>(n) / seconds_since(t0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rate;
}

}  // namespace

int main(int argc, char** argv) {
    const long n = argc > 1 ? std::atol(argv[1]) : 500000;
    char tmpl[] = "/tmp/cudabridge-bench-XXXXXX";
    const fs::path dir = mkdtemp(tmpl);
    // Keep the user's store and plugin folders out of the measurement.
    setenv("XDG_DATA_HOME", (dir / "data").c_str(), 1);

    const double file = through_front_end(dir, "file", n);
    const double file_ref = reference_fwrite(dir, n);
    const double sqlite = through_front_end(dir, "sqlite", n);
    const double sqlite_ref = reference_sqlite(dir, n);
    std::printf("records=%ld (measured on this host, not modeled)\n", n);
    std::printf("file_records_per_s=%.0f (fwrite reference %.0f, ratio %.2f)\n", file, file_ref, file / file_ref);
    std::printf("sqlite_records_per_s=%.0f (direct sqlite3 reference %.0f, ratio %.2f; goal >= 100000)\n", sqlite,
                sqlite_ref, sqlite / sqlite_ref);
    fs::remove_all(dir);
    return 0;
}

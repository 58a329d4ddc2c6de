// Test access to the built logging plugin: dlopen the library from the build tree's plugin
// folder, find sinks by name, create them against a fake_host, and small helpers (records,
// environment and stderr redirection).
#pragma once

#include "read_file.hpp"

#include "fake_host.hpp"
#include "temp_dir.hpp"

#include <cudabridge/plugin.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cbtest {

using cudabridge::test::fake_host;
using cudabridge::test::temp_dir;

// The library, loaded once per test process and kept loaded.
const cb_plugin_library& logging_library();
const cb_plugin_descriptor* find_sink(std::string_view name);

// One created sink instance; destroyed (after close, when not yet closed) with the object.
class sink {
public:
    // Creates `name` with the host's services and instance config. Check status() before use.
    sink(std::string_view name, fake_host& host);
    ~sink();
    sink(const sink&) = delete;
    sink& operator=(const sink&) = delete;

    cb_status status() const noexcept { return status_; }
    bool ok() const noexcept { return status_ == CB_OK; }
    cb_status write(const cb_log_record& r);
    cb_status write_batch(const std::vector<cb_log_record>& records);
    cb_status flush();
    void close();
    const cb_logsink_table* table() const;
    void* instance() const noexcept { return instance_; }

private:
    const cb_plugin_descriptor* descriptor_ = nullptr;
    void* instance_ = nullptr;
    cb_status status_ = CB_ERR_NOT_FOUND;
    bool closed_ = false;
};

// A record whose strings live in the record_data it came from.
struct record_data {
    cb_log_level level = CB_LOG_INFO;
    int64_t time_ns = 0;
    uint64_t thread_id = 0;
    std::string category = "GENERAL";
    std::optional<std::string> device;
    std::string message;

    cb_log_record record() const;
};

// 2026-11-29 17:42:23.123456789 UTC.
constexpr int64_t fixed_time_ns = 1795974143123456789LL;

// Local time "YYYY-MM-DD HH:MM:SS.uuuuuu" of ns since the epoch (what console/file show).
std::string local_stamp(int64_t time_ns);

using cudabridge::test::read_file;
std::vector<std::string> read_lines(const std::filesystem::path& p);

// Sets (or, with nullopt, unsets) an environment variable; restores it with the object.
class scoped_env {
public:
    scoped_env(const char* name, std::optional<std::string> value);
    ~scoped_env();
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

private:
    std::string name_;
    std::optional<std::string> saved_;
};

// Sends fd 2 to a file (or to a pseudo-terminal, so isatty(2) is true) until finish().
class stderr_capture {
public:
    enum class target { file, terminal };
    explicit stderr_capture(target t);
    ~stderr_capture();
    stderr_capture(const stderr_capture&) = delete;
    stderr_capture& operator=(const stderr_capture&) = delete;
    // Restores fd 2 and returns what was written to it.
    std::string finish();

private:
    target target_;
    int saved_ = -1;
    int write_fd_ = -1;  // file, or the terminal's slave side
    int read_fd_ = -1;   // file, or the terminal's master side
    std::filesystem::path file_;
    bool finished_ = false;
};

}  // namespace cbtest

// The text line the console, file and syslog sinks show, as a spdlog formatter:
//
//     2026-11-29 17:42:23.123456 [INFO ] [DRIVER] [t:1234] [dev0] message
//
// Records reach spdlog's sinks through feed(), which maps a cb_log_record onto a spdlog log_msg:
// time = the record's time, level = the record's level, logger_name = the category,
// thread_id = the record's thread, payload = "[device] message" (or just the message). The
// formatter only reads those fields, so it stays correct for any spdlog sink that formats the
// message it was handed.
#pragma once

#include <cudabridge/logsink.h>

#include <spdlog/formatter.h>
#include <spdlog/sinks/sink.h>

#include <cstdint>
#include <memory>

namespace cudabridge::plugins::logging {

class line_formatter final : public spdlog::formatter {
public:
    struct options {
        bool time = true;  // the leading local-time stamp (syslog adds its own)
        bool eol = true;   // a trailing newline (syslog takes none)
    };
    line_formatter() = default;
    explicit line_formatter(options o) : opts_(o) {}

    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
    std::unique_ptr<spdlog::formatter> clone() const override;

private:
    options opts_{};
    // Local-time "YYYY-MM-DD HH:MM:SS" of the last second formatted (cheap for bursts).
    int64_t cached_second_ = INT64_MIN;
    char cached_text_[32] = {};
    size_t cached_len_ = 0;
};

// Hands one record to a spdlog sink as described above. Throws what the sink throws.
void feed(spdlog::sinks::sink& sink, const cb_log_record& record);

}  // namespace cudabridge::plugins::logging

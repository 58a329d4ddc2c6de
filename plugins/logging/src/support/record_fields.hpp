// Reading a cb_log_record defensively, and the level names and time stamps every sink shows.
#pragma once

#include <cudabridge/logsink.h>

#include <spdlog/common.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace cudabridge::plugins::logging {

// "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"; "?" for a value outside the six levels.
std::string_view level_name(cb_log_level level) noexcept;

// The six levels map one to one onto spdlog's trace..critical (FATAL is critical).
spdlog::level::level_enum to_spdlog_level(cb_log_level level) noexcept;
cb_log_level from_spdlog_level(spdlog::level::level_enum level) noexcept;

// The message bytes (message_len, or up to the terminator when a producer left message_len 0).
std::string_view message_of(const cb_log_record& r) noexcept;
// The category; "GENERAL" when a producer passed NULL.
std::string_view category_of(const cb_log_record& r) noexcept;
// The device; empty when there is none.
std::string_view device_of(const cb_log_record& r) noexcept;
// The record's wall-clock time in ns since the epoch; the current time when the producer left 0.
int64_t time_of(const cb_log_record& r) noexcept;

// "2026-11-29T17:42:23.123456789Z" (UTC, nanoseconds).
std::string iso8601_utc(int64_t time_ns);

// Splits ns since the epoch into whole seconds and the nanoseconds within it (floor, so times
// before 1970 stay well formed).
struct split_time {
    int64_t seconds;
    int64_t nanos;  // 0..999'999'999
};
split_time split(int64_t time_ns) noexcept;

}  // namespace cudabridge::plugins::logging

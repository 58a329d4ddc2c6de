#include "record_fields.hpp"

#include <array>
#include <chrono>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

namespace cudabridge::plugins::logging {

namespace {
constexpr std::array<std::string_view, 6> level_names = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
}

std::string_view level_name(cb_log_level level) noexcept {
    if (level < CB_LOG_TRACE || level > CB_LOG_FATAL) return "?";
    return level_names[static_cast<size_t>(level)];
}

spdlog::level::level_enum to_spdlog_level(cb_log_level level) noexcept {
    switch (level) {
    case CB_LOG_TRACE:
        return spdlog::level::trace;
    case CB_LOG_DEBUG:
        return spdlog::level::debug;
    case CB_LOG_INFO:
        return spdlog::level::info;
    case CB_LOG_WARN:
        return spdlog::level::warn;
    case CB_LOG_ERROR:
        return spdlog::level::err;
    case CB_LOG_FATAL:
        return spdlog::level::critical;
    default:
        return level < CB_LOG_TRACE ? spdlog::level::trace : spdlog::level::critical;
    }
}

cb_log_level from_spdlog_level(spdlog::level::level_enum level) noexcept {
    switch (level) {
    case spdlog::level::trace:
        return CB_LOG_TRACE;
    case spdlog::level::debug:
        return CB_LOG_DEBUG;
    case spdlog::level::info:
        return CB_LOG_INFO;
    case spdlog::level::warn:
        return CB_LOG_WARN;
    case spdlog::level::err:
        return CB_LOG_ERROR;
    case spdlog::level::critical:
        return CB_LOG_FATAL;
    default:
        return CB_LOG_OFF;
    }
}

std::string_view message_of(const cb_log_record& r) noexcept {
    if (r.message == nullptr) return {};
    if (r.message_len == 0) return std::string_view(r.message);
    return std::string_view(r.message, r.message_len);
}

std::string_view category_of(const cb_log_record& r) noexcept {
    if (r.category == nullptr || r.category[0] == '\0') return "GENERAL";
    return r.category;
}

std::string_view device_of(const cb_log_record& r) noexcept {
    return r.device == nullptr ? std::string_view{} : std::string_view(r.device);
}

int64_t time_of(const cb_log_record& r) noexcept {
    if (r.time_ns != 0) return r.time_ns;
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

split_time split(int64_t time_ns) noexcept {
    constexpr int64_t billion = 1'000'000'000;
    int64_t s = time_ns / billion;
    int64_t ns = time_ns % billion;
    if (ns < 0) {
        ns += billion;
        s -= 1;
    }
    return {s, ns};
}

std::string iso8601_utc(int64_t time_ns) {
    const split_time t = split(time_ns);
    const std::time_t secs = static_cast<std::time_t>(t.seconds);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                       tm.tm_hour, tm.tm_min, tm.tm_sec, t.nanos);
}

}  // namespace cudabridge::plugins::logging

#include "record_columns.hpp"

#include "utc_time.hpp"

namespace csv_sink {

namespace {

const char* level_name(cb_log_level level) {
    static const char* const names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
    return level >= CB_LOG_TRACE && level <= CB_LOG_FATAL ? names[level] : "?";
}

std::string text_or_empty(const char* text) { return text != nullptr ? text : ""; }

// message_len counts the bytes; a message may hold a NUL, so the length wins over strlen.
std::string message_of(const cb_log_record& r) {
    if (r.message == nullptr) return {};
    if (r.message_len == 0) return r.message;
    return std::string(r.message, r.message_len);
}

}  // namespace

const std::vector<std::string>& column_names() {
    static const std::vector<std::string> names = {"time",   "time_ns", "level",  "category",
                                                   "thread", "device",  "message"};
    return names;
}

std::vector<std::string> column_values(const cb_log_record& r) {
    const std::string category = text_or_empty(r.category);
    return {utc_time(r.time_ns),
            std::to_string(r.time_ns),
            level_name(r.level),
            category.empty() ? "GENERAL" : category,
            std::to_string(r.thread_id),
            text_or_empty(r.device),
            message_of(r)};
}

}  // namespace csv_sink

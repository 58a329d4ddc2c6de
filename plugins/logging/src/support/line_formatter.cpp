#include "line_formatter.hpp"

#include "record_fields.hpp"

#include <spdlog/details/log_msg.h>

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <iterator>
#include <string>

namespace cudabridge::plugins::logging {

namespace {
void append(spdlog::memory_buf_t& dest, std::string_view text) { dest.append(text.data(), text.data() + text.size()); }
}  // namespace

void line_formatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
    if (opts_.time) {
        const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(msg.time.time_since_epoch()).count();
        const split_time t = split(ns);
        if (t.seconds != cached_second_) {
            const std::time_t secs = static_cast<std::time_t>(t.seconds);
            std::tm tm{};
            localtime_r(&secs, &tm);
            cached_len_ = std::strftime(cached_text_, sizeof cached_text_, "%Y-%m-%d %H:%M:%S", &tm);
            cached_second_ = t.seconds;
        }
        dest.append(cached_text_, cached_text_ + cached_len_);
        fmt::format_to(std::back_inserter(dest), ".{:06} ", t.nanos / 1000);
    }

    // "[INFO ] ": the level word is the colour range a colour sink paints.
    const std::string_view level = level_name(from_spdlog_level(msg.level));
    dest.push_back('[');
    msg.color_range_start = dest.size();
    append(dest, level);
    msg.color_range_end = dest.size();
    for (size_t i = level.size(); i < 5; ++i) dest.push_back(' ');
    append(dest, "] [");
    append(dest, std::string_view(msg.logger_name.data(), msg.logger_name.size()));
    fmt::format_to(std::back_inserter(dest), "] [t:{}] ", msg.thread_id);
    append(dest, std::string_view(msg.payload.data(), msg.payload.size()));
    if (opts_.eol) dest.push_back('\n');
}

std::unique_ptr<spdlog::formatter> line_formatter::clone() const { return std::make_unique<line_formatter>(opts_); }

void feed(spdlog::sinks::sink& sink, const cb_log_record& record) {
    const std::string_view message = message_of(record);
    const std::string_view device = device_of(record);
    const std::string_view category = category_of(record);

    std::string with_device;
    std::string_view payload = message;
    if (!device.empty()) {
        with_device.reserve(device.size() + message.size() + 3);
        with_device.append("[").append(device).append("] ").append(message);
        payload = with_device;
    }

    const auto time = spdlog::log_clock::time_point(
        std::chrono::duration_cast<spdlog::log_clock::duration>(std::chrono::nanoseconds(time_of(record))));
    spdlog::details::log_msg msg(time, spdlog::source_loc{}, spdlog::string_view_t(category.data(), category.size()),
                                 to_spdlog_level(record.level), spdlog::string_view_t(payload.data(), payload.size()));
    msg.thread_id = static_cast<size_t>(record.thread_id);
    sink.log(msg);
}

}  // namespace cudabridge::plugins::logging

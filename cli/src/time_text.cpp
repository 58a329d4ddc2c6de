#include "time_text.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

namespace cudabridge::cli {

namespace {
constexpr int64_t ns_per_s = 1000000000;

// Nanoseconds since 1970 span the years 1677 to 2262: a time outside is clamped to the nearest
// end ("before everything", "after everything") rather than overflowing.
int64_t seconds_to_ns(int64_t secs) {
    if (secs > INT64_MAX / ns_per_s) return INT64_MAX;
    if (secs < INT64_MIN / ns_per_s) return INT64_MIN;
    return secs * ns_per_s;
}

// Both printed forms are the whole seconds through strftime (local or UTC), then a dot and the
// first `digits` (3 or 6) digits of the fraction, then `suffix`: one body, two patterns.
std::string format_time(int64_t unix_ns, bool utc, const char* pattern, int digits, const char* suffix) {
    std::time_t secs = static_cast<std::time_t>(unix_ns / ns_per_s);
    std::tm tm{};
    if (utc)
        gmtime_r(&secs, &tm);
    else
        localtime_r(&secs, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, pattern, &tm);
    const int64_t unit = digits == 3 ? 1000000 : 1000;
    char out[80];
    std::snprintf(out, sizeof out, "%s.%0*d%s", buf, digits, static_cast<int>((unix_ns % ns_per_s) / unit), suffix);
    return out;
}
}  // namespace

std::string format_local_time(int64_t unix_ns) { return format_time(unix_ns, false, "%Y-%m-%d %H:%M:%S", 3, ""); }

std::string format_utc_iso(int64_t unix_ns) { return format_time(unix_ns, true, "%Y-%m-%dT%H:%M:%S", 6, "Z"); }

std::optional<int64_t> parse_since(std::string_view text, int64_t now_ns) {
    const std::string t(text);
    if (t.empty()) return std::nullopt;
    if (t[0] == '@') {
        char* end = nullptr;
        long long s = std::strtoll(t.c_str() + 1, &end, 10);
        if (t.size() == 1 || *end != '\0' || s < 0) return std::nullopt;
        return seconds_to_ns(static_cast<int64_t>(s));
    }
    // A duration back from now.
    {
        char* end = nullptr;
        long long n = std::strtoll(t.c_str(), &end, 10);
        if (end != t.c_str() && n >= 0 && end[0] != '\0' && end[1] == '\0') {
            int64_t unit = 0;
            switch (end[0]) {
            case 's':
                unit = 1;
                break;
            case 'm':
                unit = 60;
                break;
            case 'h':
                unit = 3600;
                break;
            case 'd':
                unit = 86400;
                break;
            default:
                break;
            }
            // Further back than 1970 is refused rather than wrapped around.
            if (unit != 0 && n <= now_ns / (unit * ns_per_s)) return now_ns - static_cast<int64_t>(n) * unit * ns_per_s;
            if (unit != 0) return std::nullopt;
        }
    }
    // A local date or date and time.
    for (const char* fmt : {"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
        std::tm tm{};
        const char* end = strptime(t.c_str(), fmt, &tm);
        if (end != nullptr && *end == '\0') {
            tm.tm_isdst = -1;
            std::time_t secs = std::mktime(&tm);
            if (secs == static_cast<std::time_t>(-1)) return std::nullopt;
            return seconds_to_ns(static_cast<int64_t>(secs));
        }
    }
    return std::nullopt;
}

int64_t unix_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace cudabridge::cli

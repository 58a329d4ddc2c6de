#include "utc_time.hpp"

#include <cstdio>
#include <ctime>

namespace csv_sink {

std::string utc_time(int64_t ns_since_epoch) {
    constexpr int64_t billion = 1'000'000'000;
    int64_t seconds = ns_since_epoch / billion;
    int64_t nanos = ns_since_epoch % billion;
    if (nanos < 0) {  // floor, so times before 1970 keep a positive fraction
        nanos += billion;
        seconds -= 1;
    }
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[96];  // room for any year the formats allow
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(nanos));
    return text;
}

}  // namespace csv_sink

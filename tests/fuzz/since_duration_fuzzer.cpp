// `cudabridge-cli log --since TEXT` (and `history --since`): cli::parse_since on any text, at a
// few "now"s. It must never crash or overflow, and a duration back from now must land between
// 1970 and now.
#include "time_text.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // Dates are local time: fix the zone so a finding replays the same everywhere.
    setenv("TZ", "UTC", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // The text comes from argv: a C string.
    const char* text = reinterpret_cast<const char*>(data);
    const std::string_view since(text, strnlen(text, size));
    constexpr int64_t ns_per_s = 1000000000;
    for (const int64_t now : {int64_t{0}, int64_t{1790000000} * ns_per_s, INT64_MAX}) {
        const auto at = cudabridge::cli::parse_since(since, now);
        if (!at) continue;
        const char last = since.back();
        const bool duration = since[0] != '@' && (last == 's' || last == 'm' || last == 'h' || last == 'd');
        if (duration && (*at < 0 || *at > now)) {
            std::fprintf(stderr, "--since '%.*s' at now=%lld gave %lld, outside 0..now\n",
                         static_cast<int>(since.size()), since.data(), static_cast<long long>(now),
                         static_cast<long long>(*at));
            std::abort();
        }
        if (since[0] == '@' && *at < 0) {
            std::fprintf(stderr, "--since '%.*s' gave %lld, before 1970\n", static_cast<int>(since.size()),
                         since.data(), static_cast<long long>(*at));
            std::abort();
        }
    }
    return 0;
}

// Times as the CLI reads and prints them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cudabridge::cli {

// Now, as Unix nanoseconds (the wall clock every printed time is read against).
int64_t unix_now_ns();

// "2026-11-29 17:42:23.123" in local time.
std::string format_local_time(int64_t unix_ns);
// "2026-11-29T17:42:23.123456Z".
std::string format_utc_iso(int64_t unix_ns);

// --since values: a duration back from now ("90s", "10m", "2h", "7d"), a local date or time
// ("2026-11-29", "2026-11-29 17:00", "2026-11-29T17:00:05"), or "@SECONDS" since the epoch.
// Returns Unix ns (a time before 1677 or after 2262 is clamped to the nearest end of what
// int64 nanoseconds hold), or nullopt when the text is none of these.
std::optional<int64_t> parse_since(std::string_view text, int64_t now_ns);

}  // namespace cudabridge::cli

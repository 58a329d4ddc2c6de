// Wall-clock nanoseconds as ISO 8601 UTC text, the form spreadsheets and pandas read.
#pragma once

#include <cstdint>
#include <string>

namespace csv_sink {

// "2026-11-29T17:42:23.123456789Z".
std::string utc_time(int64_t ns_since_epoch);

}  // namespace csv_sink

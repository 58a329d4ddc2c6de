// The policy's parameters: declared to the host at create (so `cudabridge-cli config list` shows
// them as conservative.<name>) and read once. evaluate must not block, and the host's store may.
#pragma once

#include <cudabridge/cpp/host.hpp>

namespace conservative {

// The defaults, ranges and help texts are in parameters.cpp, where they are declared.
struct parameters {
    double thermal_limit_c = 0;         // emergency stop at or above (80; the standard policy: 90)
    double warn_margin_c = 0;           // warn from thermal_limit_c - warn_margin_c
    double heartbeat_timeout_ms = 0;    // no heartbeat, or work stuck, for longer: a fault
    double error_rate_threshold = 0;    // link errors per packet over one interval: a fault
    double min_link_bandwidth_gbs = 0;  // a floor on top of the GPU model's own minimum
};

// Declares every parameter (also heartbeat_interval_ms and enable_data_integrity, which the
// host reads by name) and returns the effective values. Throws sdk::status_error naming a value
// outside its range.
parameters read_parameters(const cudabridge::sdk::host& host);

}  // namespace conservative

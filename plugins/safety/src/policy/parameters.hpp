// The policy's parameters as plain values, the declaration of each (name, type, range, help) the
// plugin gives the host, and parsing of their text form. The host stores them as
// "<plugin>.<name>" ("standard.thermal_limit").
#pragma once

#include <cudabridge/host_services.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cudabridge::plugins::safety {

struct parameters {
    uint32_t max_retry_count = 3;           // recovery attempts before the device is marked failed
    uint32_t retry_delay_ms = 500;          // wait before a repeated attempt
    uint32_t heartbeat_interval_ms = 1000;  // read by the host (supervisor period)
    uint32_t heartbeat_timeout_ms = 5000;   // no heartbeat / stuck work for longer is a hang
    double error_rate_threshold = 0.01;     // link errors per packet over one interval
    double thermal_limit_c = 90;            // emergency stop at or above this
    bool enable_auto_recovery = true;       // off: faults only warn
    bool enable_data_integrity = true;      // read by the host (it runs the checks)
    double thermal_hysteresis_c = 5;        // restart only below thermal_limit - hysteresis
    double min_link_bandwidth_gbs = 0;      // floor on top of the profile's minimum; 0 = none
    uint32_t kernel_time_limit_ms = 0;      // a kernel running longer is stopped; 0 = no limit
};

// The documented defaults of the standard policy (the README's safety settings).
parameters standard_defaults();
// Tighter: one retry, stop at 83 °C, 0.1% error rate.
parameters strict_defaults();

struct parameter_spec {
    const char* name;  // plugin-local name
    cb_param_type type;
    const char* help;
    double min_value;  // range of INT and DOUBLE parameters
    double max_value;
    double (*get)(const parameters&);
    void (*set)(parameters&, double);
};

// Every parameter, in the order they are declared and documented.
std::span<const parameter_spec> parameter_specs();

// The text the host stores as the default ("3", "0.01", "1").
std::string default_text(const parameter_spec& spec, const parameters& defaults);

// Parses `text` into p; on failure p is unchanged and the reason is returned.
std::optional<std::string> assign_parameter(parameters& p, const parameter_spec& spec, std::string_view text);

}  // namespace cudabridge::plugins::safety

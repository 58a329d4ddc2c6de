#include "policy/parameters.hpp"

#include "policy/text.hpp"

#include <cudabridge/cpp/bool_text.hpp>

#include <array>
#include <charconv>
#include <cmath>

namespace cudabridge::plugins::safety {

namespace {

template <auto Member>
double get_field(const parameters& p) {
    return static_cast<double>(p.*Member);
}

template <auto Member>
void set_field(parameters& p, double v) {
    using field = std::remove_reference_t<decltype(p.*Member)>;
    if constexpr (std::is_same_v<field, bool>)
        p.*Member = v != 0;
    else
        p.*Member = static_cast<field>(v);
}

#define CB_SAFETY_FIELD(member) &get_field<&parameters::member>, &set_field<&parameters::member>

const std::array<parameter_spec, 11> specs = {{
    {"max_retry_count", CB_PARAM_INT,
     "recovery attempts in a row before the device is marked failed (0: mark failed at once)", 0, 100,
     CB_SAFETY_FIELD(max_retry_count)},
    {"retry_delay_ms", CB_PARAM_INT, "milliseconds to wait before each repeated recovery attempt", 0, 600000,
     CB_SAFETY_FIELD(retry_delay_ms)},
    {"heartbeat_interval_ms", CB_PARAM_INT, "milliseconds between health samples (heartbeat, telemetry, link counters)",
     10, 3600000, CB_SAFETY_FIELD(heartbeat_interval_ms)},
    {"heartbeat_timeout_ms", CB_PARAM_INT,
     "milliseconds without a heartbeat, or with work stuck, before the device counts as hung", 10, 3600000,
     CB_SAFETY_FIELD(heartbeat_timeout_ms)},
    {"error_rate_threshold", CB_PARAM_DOUBLE,
     "link errors per packet over one interval above which the device gets a soft reset "
     "(0.01 = 1%); half of it warns",
     0, 1, CB_SAFETY_FIELD(error_rate_threshold)},
    {"thermal_limit", CB_PARAM_DOUBLE,
     "GPU temperature in degrees C at which all work stops (emergency stop); as low as 20, "
     "below a board's idle temperature, for fault drills",
     20, 120, CB_SAFETY_FIELD(thermal_limit_c)},
    {"enable_auto_recovery", CB_PARAM_BOOL,
     "recover from faults on its own (soft reset, hard reset, reconnect); off: only warn", 0, 1,
     CB_SAFETY_FIELD(enable_auto_recovery)},
    {"enable_data_integrity", CB_PARAM_BOOL, "check transfers (CRC) and treat a mismatch as a fault", 0, 1,
     CB_SAFETY_FIELD(enable_data_integrity)},
    {"thermal_hysteresis_c", CB_PARAM_DOUBLE,
     "degrees C below thermal_limit the GPU must cool to before work resumes; warnings start "
     "there too",
     0, 50, CB_SAFETY_FIELD(thermal_hysteresis_c)},
    {"min_link_bandwidth_gbs", CB_PARAM_DOUBLE,
     "least host-to-device link bandwidth in GB/s a device needs to connect, on top of its "
     "model's minimum (0: the model's minimum only)",
     0, 1000, CB_SAFETY_FIELD(min_link_bandwidth_gbs)},
    {"kernel_time_limit_ms", CB_PARAM_INT,
     "milliseconds a kernel may run before it is stopped (a soft reset), as a display GPU's watchdog "
     "does; 0: no limit, as on a compute GPU",
     0, 86400000, CB_SAFETY_FIELD(kernel_time_limit_ms)},
}};

#undef CB_SAFETY_FIELD

template <class Number>
std::optional<Number> parse_number(std::string_view t) {
    Number n{};
    const char* end = t.data() + t.size();
    auto [stop, ec] = std::from_chars(t.data(), end, n);
    if (t.empty() || ec != std::errc{} || stop != end) return std::nullopt;
    return n;
}

}  // namespace

parameters standard_defaults() { return parameters{}; }

parameters strict_defaults() {
    parameters p;
    p.max_retry_count = 1;
    p.thermal_limit_c = 83;
    p.error_rate_threshold = 0.001;
    return p;
}

std::span<const parameter_spec> parameter_specs() { return specs; }

std::string default_text(const parameter_spec& spec, const parameters& defaults) {
    const double v = spec.get(defaults);
    switch (spec.type) {
    case CB_PARAM_BOOL:
        return v != 0 ? "1" : "0";
    case CB_PARAM_INT:
        return printf_text("%lld", static_cast<long long>(v));
    default: {
        // Shortest text that reads back as the same double: "0.01", not "0.010000000000000000".
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
        return ec == std::errc{} ? std::string(buf, end) : printf_text("%.17g", v);
    }
    }
}

std::optional<std::string> assign_parameter(parameters& p, const parameter_spec& spec, std::string_view text) {
    const std::string shown(text);
    double value = 0;
    if (spec.type == CB_PARAM_BOOL) {
        auto b = sdk::parse_bool(text);
        if (!b) return sdk::not_a_bool_message(text);
        value = *b ? 1 : 0;
    } else if (spec.type == CB_PARAM_INT) {
        auto n = parse_number<long long>(text);
        if (!n) return "'" + shown + "' is not an integer";
        value = static_cast<double>(*n);
    } else {
        auto d = parse_number<double>(text);
        if (!d || !std::isfinite(*d)) return "'" + shown + "' is not a number";
        value = *d;
    }
    if (spec.type != CB_PARAM_BOOL && (value < spec.min_value || value > spec.max_value))
        return printf_text("%s is outside %g .. %g", shown.c_str(), spec.min_value, spec.max_value);
    spec.set(p, value);
    return std::nullopt;
}

}  // namespace cudabridge::plugins::safety

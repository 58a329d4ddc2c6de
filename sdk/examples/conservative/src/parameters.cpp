#include "parameters.hpp"

#include "text.hpp"

#include <string>

namespace conservative {

namespace {

namespace sdk = cudabridge::sdk;

struct spec {
    cb_param_type type;
    const char* name;
    const char* fallback;
    double min, max;
    const char* help;
    double parameters::*field;  // nullptr: read by the host, not by the policy
};

const spec specs[] = {
    {CB_PARAM_DOUBLE, "thermal_limit", "80", 20, 120,
     "GPU temperature in degrees C at which all work stops; work resumes only after a manual reset",
     &parameters::thermal_limit_c},
    {CB_PARAM_DOUBLE, "warn_margin_c", "5", 0, 50, "warn from this many degrees C below thermal_limit",
     &parameters::warn_margin_c},
    {CB_PARAM_INT, "heartbeat_timeout_ms", "5000", 10, 3600000,
     "milliseconds without a heartbeat, or with work stuck, before the device is marked failed",
     &parameters::heartbeat_timeout_ms},
    {CB_PARAM_DOUBLE, "error_rate_threshold", "0.01", 0, 1,
     "link errors per packet over one interval above which the device is marked failed; half warns",
     &parameters::error_rate_threshold},
    {CB_PARAM_DOUBLE, "min_link_bandwidth_gbs", "0", 0, 1000,
     "least link bandwidth in GB/s a device needs, on top of its GPU model's minimum",
     &parameters::min_link_bandwidth_gbs},
    {CB_PARAM_INT, "heartbeat_interval_ms", "1000", 10, 3600000,
     "milliseconds between health samples (read by the host)", nullptr},
    {CB_PARAM_BOOL, "enable_data_integrity", "1", 0, 1, "check copies with a CRC (read by the host)", nullptr},
};

}  // namespace

parameters read_parameters(const sdk::host& host) {
    parameters p;
    for (const spec& s : specs) {
        const bool ranged = s.type != CB_PARAM_BOOL;
        host.declare_range(s.type, s.name, s.fallback, s.help, ranged, s.min, s.max);
        if (s.field == nullptr) continue;
        const double value = host.param_double(s.name, std::stod(s.fallback));
        if (!(value >= s.min && value <= s.max))
            throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, format_text("conservative.%s = %g is outside %g .. %g",
                                                                         s.name, value, s.min, s.max));
        p.*s.field = value;
    }
    return p;
}

}  // namespace conservative

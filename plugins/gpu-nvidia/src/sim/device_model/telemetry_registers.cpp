#include "sim/device_model/telemetry_registers.hpp"

#include "common/hw/registers.hpp"
#include "sim/thermal/thermal_model.hpp"

#include <algorithm>
#include <cmath>

namespace cudabridge::nv {
namespace {

// value x 1000, rounded, clamped to the register's range.
uint32_t milli(double value) {
    if (!std::isfinite(value) || value <= 0) return 0;
    return static_cast<uint32_t>(std::min(std::llround(value * 1000.0), static_cast<long long>(UINT32_MAX)));
}

uint32_t rounded(double value) {
    if (!std::isfinite(value) || value <= 0) return 0;
    return static_cast<uint32_t>(std::min(std::llround(value), static_cast<long long>(UINT32_MAX)));
}

bool read_telemetry(board_telemetry& telemetry, uint32_t offset, uint32_t& value) {
    namespace r = hw::reg;
    if (offset < r::temp_mc || offset > r::last_xid) return false;
    const telemetry_sample s = telemetry.sample();
    const thermal_state& t = s.thermal;
    switch (offset) {
    case r::temp_mc:
        value = milli(t.temperature_c);
        return true;
    case r::power_mw:
        value = milli(t.power_w);
        return true;
    case r::fan_percent:
        value = t.fan_percent < 0 ? hw::no_fan : rounded(t.fan_percent);
        return true;
    case r::sm_clock_mhz:
        value = t.sm_clock_mhz;
        return true;
    case r::mem_clock_mhz:
        value = t.mem_clock_mhz;
        return true;
    case r::throttle:
        value = t.throttle_reasons;
        return true;
    case r::gpu_util_permille:
        value = std::min(1000u, rounded(s.gpu_utilization_percent * 10));
        return true;
    case r::mem_util_permille:
        value = std::min(1000u, rounded(s.memory_utilization_percent * 10));
        return true;
    case r::pstate_current:
        value = static_cast<uint32_t>(std::clamp(t.performance_state, 0, 15));
        return true;
    case r::xid_count:
        value = static_cast<uint32_t>(std::min<uint64_t>(s.xid_count, UINT32_MAX));
        return true;
    case r::last_xid:
        value = s.last_xid;
        return true;
    default:
        return false;
    }
}

bool read_settings(board_telemetry& telemetry, const gpu_profile& profile, uint32_t offset, uint32_t& value) {
    namespace r = hw::reg;
    if (offset < r::power_limit_mw || offset > r::pstate_request) return false;
    const thermal_settings s = telemetry.settings();
    switch (offset) {
    case r::power_limit_mw:
        value = milli(s.power_limit_w > 0 ? s.power_limit_w : profile.power_default_w);
        return true;
    case r::locked_sm_clock_mhz:
        value = s.locked_sm_clock_mhz;
        return true;
    case r::locked_mem_clock_mhz:
        value = s.locked_mem_clock_mhz;
        return true;
    case r::fan_control:
        value = s.fan_percent < 0 ? hw::fan_auto : static_cast<uint32_t>(s.fan_percent);
        return true;
    case r::pstate_request:
        value = static_cast<uint32_t>(s.performance_state);
        return true;
    default:
        return false;
    }
}

bool read_bounds(const gpu_profile& profile, uint32_t offset, uint32_t& value) {
    namespace r = hw::reg;
    if (offset < r::min_power_mw || offset > r::max_operating_temp_mc) return false;
    const cb_gpu_setting_limits l = setting_limits(profile);
    switch (offset) {
    case r::min_power_mw:
        value = milli(l.min_power_w);
        return true;
    case r::max_power_mw:
        value = milli(l.max_power_w);
        return true;
    case r::default_power_mw:
        value = milli(l.default_power_w);
        return true;
    case r::min_sm_clock:
        value = l.min_sm_clock_mhz;
        return true;
    case r::max_sm_clock:
        value = l.max_sm_clock_mhz;
        return true;
    case r::min_mem_clock:
        value = l.min_memory_clock_mhz;
        return true;
    case r::max_mem_clock:
        value = l.max_memory_clock_mhz;
        return true;
    case r::slowdown_temp_mc:
        value = milli(profile.slowdown_temp_c);
        return true;
    case r::shutdown_temp_mc:
        value = milli(profile.shutdown_temp_c);
        return true;
    case r::max_operating_temp_mc:
        value = milli(profile.max_operating_temp_c);
        return true;
    default:
        return false;
    }
}

}  // namespace

bool read_board_register(board_telemetry& telemetry, const gpu_profile& profile, uint32_t offset, uint32_t& value) {
    return read_telemetry(telemetry, offset, value) || read_settings(telemetry, profile, offset, value) ||
           read_bounds(profile, offset, value);
}

bool write_board_register(board_telemetry& telemetry, uint32_t offset, uint32_t value, cb_status& outcome) {
    namespace r = hw::reg;
    cb_gpu_settings request{};
    request.struct_size = sizeof request;
    switch (offset) {
    case r::power_limit_mw:
        request.fields = CB_SET_POWER_LIMIT;
        request.power_limit_w = value / 1000.0;
        break;
    case r::locked_sm_clock_mhz:
    case r::locked_mem_clock_mhz: {
        // One CB_SET_CLOCKS request sets both: the other keeps its current value.
        const thermal_settings now = telemetry.settings();
        request.fields = CB_SET_CLOCKS;
        request.sm_clock_mhz = offset == r::locked_sm_clock_mhz ? value : now.locked_sm_clock_mhz;
        request.memory_clock_mhz = offset == r::locked_mem_clock_mhz ? value : now.locked_mem_clock_mhz;
        break;
    }
    case r::fan_control:
        request.fields = CB_SET_FAN;
        request.fan_percent = value == hw::fan_auto ? -1 : static_cast<int32_t>(std::min<uint32_t>(value, INT32_MAX));
        break;
    case r::pstate_request:
        request.fields = CB_SET_PSTATE;
        request.performance_state = static_cast<int32_t>(std::min<uint32_t>(value, INT32_MAX));
        break;
    default:
        return false;
    }
    std::string why;
    outcome = telemetry.apply(request, why);
    return true;
}

}  // namespace cudabridge::nv

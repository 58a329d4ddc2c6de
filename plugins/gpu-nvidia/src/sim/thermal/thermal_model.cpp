// The thermal / power / fan / clock model of the simulated GPU (see thermal_model.hpp).
//
// Model choices (the simulator's own constants; everything else comes from the profile):
//  - Idle power is 10% of the default power limit (an idle desktop board draws roughly
//    20-40 W of a 200-600 W budget), never above the current limit.
//  - Power follows its target with a first-order lag of 0.5 s (boards settle within a few
//    hundred ms of a load change). Target = idle + activity x (limit - idle) x clock ratio, where
//    the clock ratio is the SM clock a setting or thermal throttling allows over the boost clock
//    (at most 1). A board never draws more than its limit: lowering the limit takes effect at once.
//  - Temperature follows ambient + power x thermal resistance with a first-order lag of 20 s (the
//    heatsink's mass). Power and temperature are integrated exactly for constant inputs (sums of
//    exp(-dt/tau) terms), in sub-steps of at most 0.25 s so throttling feeds back smoothly; every
//    sub-step is a convex blend of bounded values, so any dt is stable. A step longer than 30
//    temperature lags (600 s) integrates only its last 600 s: what came before has decayed to
//    e^-30 of itself, so the result is the same and a huge dt costs no more than 2400 sub-steps.
//  - The fan does not change the thermal resistance: the profile's resistance already assumes
//    the board's own cooling (so a fixed fan speed only changes the readout).
//  - Engine activity reported for utilization is smoothed with a 0.5 s lag; the board counts as
//    idle while that smoothed activity is below 1%.
//  - SM clocks: idle clock 210 MHz (what NVIDIA boards report at P8; capped at the base clock);
//    busy: the locked clock when set, else the boost clock (an idle board drops to the idle clock
//    even when clocks are locked). Past the slowdown temperature the clock
//    falls linearly to the idle clock at the shutdown temperature (HW_SLOWDOWN | SW_THERMAL).
//    While power is at the limit (within 2%) the clock scales by cbrt((limit - idle) /
//    (default - idle)), at most 1, since dynamic power grows about as the cube of the clock
//    (P ~ f V^2, V ~ f) (SW_POWER_CAP). A locked clock or P-state floor holding the clock under
//    boost reports APP_CLOCKS.
//  - Memory clock: the profile's memory clock, or the locked memory clock; the P-state does not
//    change it.
//  - P-states: P0 when busy, P8 when idle; a requested floor N makes the state max(natural, N) and
//    caps the SM clock: P0-P2 no cap, P3-P7 the base clock, P8-P15 the idle clock.
//  - Setting bounds: SM clock 210 MHz (capped at base) .. max clock; memory clock 405 MHz (capped
//    at the profile's) .. the profile's memory clock (405 MHz is the lowest memory clock NVIDIA
//    boards list); power min .. max of the profile; P-states 0..15 (the ABI's range); fan 0..100%
//    or -1 (automatic). A passive board accepts only -1 (what it does anyway), so applying every
//    field that settings_of() returns works on any board.
#include "sim/thermal/thermal_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cudabridge::nv {
namespace {

constexpr double kIdlePowerFraction = 0.10;
constexpr double kPowerTauS = 0.5;
constexpr double kTemperatureTauS = 20.0;
constexpr double kHorizonS = 30 * kTemperatureTauS;
constexpr double kActivityTauS = 0.5;
constexpr double kMaxSubstepS = 0.25;
constexpr double kIdleActivity = 0.01;
constexpr double kPowerCapMargin = 0.02;
constexpr uint32_t kIdleSmClockMhz = 210;
constexpr uint32_t kMinMemoryClockMhz = 405;
constexpr int32_t kBusyPState = 0;
constexpr int32_t kIdlePState = 8;
constexpr int32_t kMaxPState = 15;
constexpr int32_t kFirstBaseCappedPState = 3;
constexpr int32_t kFirstIdleCappedPState = 8;
static_assert(kPowerTauS != kTemperatureTauS, "the exact two-lag solution needs distinct lags");

double power_limit_of(const gpu_profile& profile, const thermal_settings& settings) {
    return settings.power_limit_w > 0 ? settings.power_limit_w : profile.power_default_w;
}

double idle_power(const gpu_profile& profile, double limit) {
    return std::min(kIdlePowerFraction * profile.power_default_w, limit);
}

uint32_t idle_sm_clock(const gpu_profile& profile) { return std::min(kIdleSmClockMhz, profile.base_clock_mhz); }

double fan_curve_percent(const std::vector<fan_point>& curve, double temperature_c) {
    if (temperature_c <= curve.front().temperature_c) return curve.front().percent;
    for (size_t i = 1; i < curve.size(); ++i) {
        const fan_point& lo = curve[i - 1];
        const fan_point& hi = curve[i];
        if (temperature_c < hi.temperature_c) {
            const double span = hi.temperature_c - lo.temperature_c;
            const double t = span > 0 ? (temperature_c - lo.temperature_c) / span : 1.0;
            return lo.percent + t * (hi.percent - lo.percent);
        }
    }
    return curve.back().percent;
}

double fan_readout(const gpu_profile& profile, const thermal_state& state) {
    if (profile.passive()) return -1.0;
    if (state.settings.fan_percent >= 0) return state.settings.fan_percent;
    return fan_curve_percent(profile.fan_curve, state.temperature_c);
}

// The SM clock cap a requested P-state floor sets (0: none).
uint32_t pstate_clock_cap(const gpu_profile& profile, int32_t requested) {
    if (requested >= kFirstIdleCappedPState) return idle_sm_clock(profile);
    if (requested >= kFirstBaseCappedPState) return profile.base_clock_mhz;
    return 0;
}

// 1 below the slowdown temperature, falling linearly to idle/clock at the shutdown temperature.
double thermal_clock_factor(const gpu_profile& profile, double temperature_c, uint32_t clock) {
    if (temperature_c <= profile.slowdown_temp_c || clock == 0) return 1.0;
    const double span = profile.shutdown_temp_c - profile.slowdown_temp_c;
    const double t = span > 0 ? std::min(1.0, (temperature_c - profile.slowdown_temp_c) / span) : 1.0;
    const double floor = std::min(1.0, static_cast<double>(idle_sm_clock(profile)) / clock);
    return 1.0 - t * (1.0 - floor);
}

double power_cap_clock_factor(const gpu_profile& profile, double limit) {
    const double idle = idle_power(profile, limit);
    const double headroom_default = profile.power_default_w - idle;
    if (headroom_default <= 0) return 1.0;
    return std::clamp(std::cbrt(std::max(0.0, limit - idle) / headroom_default), 0.0, 1.0);
}

// Where the board runs for given activity, temperature and power: clocks, reasons, P-state, and
// the clock ratio (before the power cap) that scales the power target.
struct operating_point {
    uint32_t sm_clock_mhz = 0;
    uint32_t mem_clock_mhz = 0;
    uint32_t throttle_reasons = 0;
    int32_t performance_state = kIdlePState;
    double power_clock_ratio = 0;
};

operating_point operating_point_of(const gpu_profile& profile, const thermal_settings& settings, bool busy,
                                   double temperature_c, double power_w) {
    operating_point op;
    const int32_t requested = std::clamp(settings.performance_state, 0, kMaxPState);
    op.performance_state = std::max(busy ? kBusyPState : kIdlePState, requested);
    op.mem_clock_mhz = settings.locked_mem_clock_mhz ? settings.locked_mem_clock_mhz : profile.memory_clock_mhz;
    if (!busy) {
        op.sm_clock_mhz = idle_sm_clock(profile);
        op.throttle_reasons = CB_THROTTLE_IDLE;
        op.power_clock_ratio = profile.boost_clock_mhz
                                   ? std::min(1.0, static_cast<double>(op.sm_clock_mhz) / profile.boost_clock_mhz)
                                   : 1.0;
        return op;
    }
    double clock = settings.locked_sm_clock_mhz ? settings.locked_sm_clock_mhz : profile.boost_clock_mhz;
    if (const uint32_t cap = pstate_clock_cap(profile, requested); cap && clock > cap) clock = cap;
    if (clock < profile.boost_clock_mhz) op.throttle_reasons |= CB_THROTTLE_APP_CLOCKS;
    const double thermal = thermal_clock_factor(profile, temperature_c, static_cast<uint32_t>(clock));
    if (thermal < 1.0) op.throttle_reasons |= CB_THROTTLE_HW_SLOWDOWN | CB_THROTTLE_SW_THERMAL;
    clock *= thermal;
    op.power_clock_ratio = profile.boost_clock_mhz ? std::min(1.0, clock / profile.boost_clock_mhz) : 1.0;
    const double limit = power_limit_of(profile, settings);
    if (power_w >= limit * (1.0 - kPowerCapMargin)) {
        op.throttle_reasons |= CB_THROTTLE_SW_POWER_CAP;
        clock *= power_cap_clock_factor(profile, limit);
    }
    op.sm_clock_mhz = static_cast<uint32_t>(std::lround(std::max(clock, 1.0)));
    return op;
}

void apply_operating_point(thermal_state& state, const operating_point& op) {
    state.sm_clock_mhz = op.sm_clock_mhz;
    state.mem_clock_mhz = op.mem_clock_mhz;
    state.throttle_reasons = op.throttle_reasons;
    state.performance_state = op.performance_state;
}

// One step with constant inputs, solved exactly: power P -> target with lag tp, temperature T ->
// ambient + P R with lag tT. With d0 = P0 - target and u = T - ambient - target R,
// u(t) = u0 e^{-t/tT} + d0 R tp / (tT - tp) (e^{-t/tT} - e^{-t/tp}).
void substep(const gpu_profile& profile, thermal_state& state, double dt, double activity) {
    const double limit = power_limit_of(profile, state.settings);
    const double idle = idle_power(profile, limit);
    const bool busy = activity > 0;
    const operating_point op = operating_point_of(profile, state.settings, busy, state.temperature_c, state.power_w);
    const double target = idle + activity * (limit - idle) * op.power_clock_ratio;
    const double p0 = std::min(state.power_w, limit);
    const double r = profile.thermal_resistance_c_per_w;
    const double ep = std::exp(-dt / kPowerTauS);
    const double et = std::exp(-dt / kTemperatureTauS);
    const double d0 = p0 - target;
    const double u0 = state.temperature_c - profile.ambient_temp_c - target * r;
    const double u = u0 * et + d0 * r * kPowerTauS / (kTemperatureTauS - kPowerTauS) * (et - ep);
    state.power_w = target + d0 * ep;
    state.temperature_c = profile.ambient_temp_c + target * r + u;
    state.activity = activity + (state.activity - activity) * std::exp(-dt / kActivityTauS);
}

bool finite_in(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }

std::string format_range(const char* what, double value, double lo, double hi, const char* unit) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %g%s outside %g..%g%s", what, value, unit, lo, hi, unit);
    return buf;
}

}  // namespace

thermal_state initial_thermal_state(const gpu_profile& profile) {
    thermal_state state;
    state.settings.power_limit_w = profile.power_default_w;
    state.temperature_c = profile.ambient_temp_c;
    state.power_w = idle_power(profile, profile.power_default_w);
    state.activity = 0;
    apply_operating_point(state,
                          operating_point_of(profile, state.settings, false, state.temperature_c, state.power_w));
    state.fan_percent = fan_readout(profile, state);
    return state;
}

void advance(const gpu_profile& profile, thermal_state& state, double dt_seconds, double activity) {
    if (!std::isfinite(activity)) activity = 0;
    activity = std::clamp(activity, 0.0, 1.0);
    if (std::isfinite(dt_seconds) && dt_seconds > 0) {
        const double span = std::min(dt_seconds, kHorizonS);
        const int steps = std::max(1, static_cast<int>(std::ceil(span / kMaxSubstepS)));
        for (int i = 0; i < steps; ++i) substep(profile, state, span / steps, activity);
    }
    state.power_w = std::min(state.power_w, power_limit_of(profile, state.settings));
    const bool busy = state.activity >= kIdleActivity;
    apply_operating_point(state, operating_point_of(profile, state.settings, busy, state.temperature_c, state.power_w));
    state.fan_percent = fan_readout(profile, state);
}

cb_gpu_setting_limits setting_limits(const gpu_profile& profile) {
    cb_gpu_setting_limits limits{};
    limits.struct_size = sizeof limits;
    limits.min_sm_clock_mhz = idle_sm_clock(profile);
    limits.max_sm_clock_mhz = profile.max_clock_mhz;
    limits.min_memory_clock_mhz = std::min(kMinMemoryClockMhz, profile.memory_clock_mhz);
    limits.max_memory_clock_mhz = profile.memory_clock_mhz;
    limits.min_power_w = profile.power_min_w;
    limits.max_power_w = profile.power_max_w;
    limits.default_power_w = profile.power_default_w;
    limits.min_performance_state = 0;
    limits.max_performance_state = kMaxPState;
    limits.fan_control = profile.passive() ? 0 : 1;
    return limits;
}

cb_status apply_settings(const gpu_profile& profile, thermal_settings& settings, const cb_gpu_settings& request,
                         std::string& error) {
    constexpr uint32_t known = CB_SET_CLOCKS | CB_SET_POWER_LIMIT | CB_SET_FAN | CB_SET_PSTATE;
    if (request.fields & ~known) {
        char buf[80];
        std::snprintf(buf, sizeof buf, "unknown settings fields 0x%x", request.fields & ~known);
        error = buf;
        return CB_ERR_INVALID_ARGUMENT;
    }
    const cb_gpu_setting_limits limits = setting_limits(profile);
    const auto refuse = [&](std::string message) {
        error = std::move(message);
        return CB_ERR_INVALID_ARGUMENT;
    };
    if (request.fields & CB_SET_CLOCKS) {
        const uint32_t sm = request.sm_clock_mhz, mem = request.memory_clock_mhz;
        if (sm && (sm < limits.min_sm_clock_mhz || sm > limits.max_sm_clock_mhz))
            return refuse(format_range("SM clock", sm, limits.min_sm_clock_mhz, limits.max_sm_clock_mhz, " MHz"));
        if (mem && (mem < limits.min_memory_clock_mhz || mem > limits.max_memory_clock_mhz))
            return refuse(
                format_range("memory clock", mem, limits.min_memory_clock_mhz, limits.max_memory_clock_mhz, " MHz"));
    }
    if ((request.fields & CB_SET_POWER_LIMIT) &&
        !finite_in(request.power_limit_w, limits.min_power_w, limits.max_power_w))
        return refuse(format_range("power limit", request.power_limit_w, limits.min_power_w, limits.max_power_w, " W"));
    if (request.fields & CB_SET_FAN) {
        // "Automatic" is what a passive board does anyway, so a read-modify-write of every field
        // (settings_of) still works on one; a fixed speed cannot be had.
        if (!limits.fan_control && request.fan_percent != -1) {
            error = "fan speed: " + profile.name + " is passively cooled (no fan to set)";
            return CB_ERR_UNSUPPORTED;
        }
        if (request.fan_percent != -1 && (request.fan_percent < 0 || request.fan_percent > 100))
            return refuse(format_range("fan speed", request.fan_percent, 0, 100, "%") + " (-1: automatic)");
    }
    if ((request.fields & CB_SET_PSTATE) && (request.performance_state < limits.min_performance_state ||
                                             request.performance_state > limits.max_performance_state)) {
        char buf[80];
        std::snprintf(buf, sizeof buf, "performance state P%d outside P%d..P%d", request.performance_state,
                      limits.min_performance_state, limits.max_performance_state);
        return refuse(buf);
    }
    // Every named field is valid: apply them together.
    if (request.fields & CB_SET_CLOCKS) {
        settings.locked_sm_clock_mhz = request.sm_clock_mhz;
        settings.locked_mem_clock_mhz = request.memory_clock_mhz;
    }
    if (request.fields & CB_SET_POWER_LIMIT) settings.power_limit_w = request.power_limit_w;
    if (request.fields & CB_SET_FAN) settings.fan_percent = request.fan_percent;
    if (request.fields & CB_SET_PSTATE) settings.performance_state = request.performance_state;
    error.clear();
    return CB_OK;
}

cb_gpu_settings settings_of(const thermal_settings& settings) {
    cb_gpu_settings out{};
    out.struct_size = sizeof out;
    out.fields = CB_SET_CLOCKS | CB_SET_POWER_LIMIT | CB_SET_FAN | CB_SET_PSTATE;
    out.sm_clock_mhz = settings.locked_sm_clock_mhz;
    out.memory_clock_mhz = settings.locked_mem_clock_mhz;
    out.power_limit_w = settings.power_limit_w;
    out.fan_percent = settings.fan_percent;
    out.performance_state = settings.performance_state;
    return out;
}

}  // namespace cudabridge::nv

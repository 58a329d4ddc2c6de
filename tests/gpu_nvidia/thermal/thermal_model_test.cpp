// The thermal / power / fan / clock model against closed forms computed here from the documented
// model choices of thermal_model.cpp.
#include "sim/thermal/thermal_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

using namespace cudabridge::nv;

namespace {

// The documented model choices (thermal_model.cpp).
constexpr double kIdleFraction = 0.10;
constexpr double kPowerTau = 0.5;
constexpr double kTempTau = 20.0;
constexpr uint32_t kIdleClock = 210;

const gpu_profile& seeded(const char* key) {
    const gpu_profile* p = find_profile_by_key(key);
    if (!p) throw std::runtime_error(std::string("no seeded profile ") + key);
    return *p;
}

gpu_profile fan_board() {
    gpu_profile p = seeded("rtx-5090");
    p.fan_curve = {{40, 30}, {60, 45}, {75, 70}, {85, 100}};
    return p;
}

double idle_power(const gpu_profile& p) { return kIdleFraction * p.power_default_w; }

// Advances `total` seconds in steps of `step` at constant activity.
void run(const gpu_profile& p, thermal_state& s, double total, double step, double activity) {
    for (double t = 0; t < total - 1e-12; t += step) advance(p, s, std::min(step, total - t), activity);
}

bool same_settings(const thermal_settings& a, const thermal_settings& b) {
    return a.locked_sm_clock_mhz == b.locked_sm_clock_mhz && a.locked_mem_clock_mhz == b.locked_mem_clock_mhz &&
           a.power_limit_w == b.power_limit_w && a.fan_percent == b.fan_percent &&
           a.performance_state == b.performance_state;
}

cb_gpu_settings request(uint32_t fields) {
    cb_gpu_settings r{};
    r.struct_size = sizeof r;
    r.fields = fields;
    r.fan_percent = -1;
    return r;
}

std::string range_text(const char* what, double v, double lo, double hi, const char* unit) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %g%s outside %g..%g%s", what, v, unit, lo, hi, unit);
    return buf;
}

}  // namespace

TEST(ThermalModel, InitialStateIsAnIdleBoardAtAmbient) {
    const gpu_profile& p = seeded("rtx-5090");
    const thermal_state s = initial_thermal_state(p);
    EXPECT_DOUBLE_EQ(s.temperature_c, p.ambient_temp_c);
    EXPECT_DOUBLE_EQ(s.power_w, idle_power(p));
    EXPECT_DOUBLE_EQ(s.settings.power_limit_w, p.power_default_w);
    EXPECT_EQ(s.settings.locked_sm_clock_mhz, 0u);
    EXPECT_EQ(s.settings.fan_percent, -1);
    EXPECT_EQ(s.sm_clock_mhz, kIdleClock);
    EXPECT_EQ(s.mem_clock_mhz, p.memory_clock_mhz);
    EXPECT_EQ(s.performance_state, 8);
    EXPECT_EQ(s.throttle_reasons, uint32_t{CB_THROTTLE_IDLE});
    EXPECT_DOUBLE_EQ(s.fan_percent, p.fan_curve.front().percent);   // ambient is below the first point
    EXPECT_LT(initial_thermal_state(seeded("l4")).fan_percent, 0);  // passive: no fan readout
}

TEST(ThermalModel, IdleBoardSettlesAtAmbientPlusIdlePowerTimesResistance) {
    const gpu_profile& p = seeded("rtx-4080-super");
    thermal_state s = initial_thermal_state(p);
    run(p, s, 600, 0.5, 0.0);
    const double expected = p.ambient_temp_c + idle_power(p) * p.thermal_resistance_c_per_w;
    EXPECT_NEAR(s.temperature_c, expected, 1e-6);
    EXPECT_NEAR(s.power_w, idle_power(p), 1e-9);
    EXPECT_EQ(s.performance_state, 8);
    EXPECT_EQ(s.sm_clock_mhz, kIdleClock);
    EXPECT_TRUE(s.throttle_reasons & CB_THROTTLE_IDLE);
}

// From an idle board at ambient under full load: P(t) = L + (P0 - L) e^{-t/tp};
// T(t) = A + L R + (T0 - A - L R) e^{-t/tT} + (P0 - L) R tp/(tT - tp) (e^{-t/tT} - e^{-t/tp}).
TEST(ThermalModel, FullLoadFollowsTheExactTwoLagSolution) {
    const gpu_profile& p = seeded("rtx-5090");
    thermal_state s = initial_thermal_state(p);
    const double L = p.power_default_w, R = p.thermal_resistance_c_per_w, A = p.ambient_temp_c;
    const double P0 = s.power_w, T0 = s.temperature_c;
    const double checkpoints[] = {0.05, 0.5, 2, 10, 30, 90, 300};
    double t = 0;
    for (double at : checkpoints) {
        run(p, s, at - t, 0.01, 1.0);
        t = at;
        const double ep = std::exp(-t / kPowerTau), et = std::exp(-t / kTempTau);
        const double power = L + (P0 - L) * ep;
        const double temp =
            A + L * R + (T0 - A - L * R) * et + (P0 - L) * R * kPowerTau / (kTempTau - kPowerTau) * (et - ep);
        EXPECT_NEAR(s.power_w, power, 1e-6 * L) << "t=" << t;
        EXPECT_NEAR(s.temperature_c, temp, 1e-6) << "t=" << t;
    }
    EXPECT_NEAR(s.temperature_c, A + L * R, 1e-3);  // 15 lags: settled
    EXPECT_EQ(s.performance_state, 0);
    EXPECT_EQ(s.sm_clock_mhz, p.boost_clock_mhz);
    EXPECT_TRUE(s.throttle_reasons & CB_THROTTLE_SW_POWER_CAP);
    EXPECT_FALSE(s.throttle_reasons & (CB_THROTTLE_IDLE | CB_THROTTLE_SW_THERMAL | CB_THROTTLE_HW_SLOWDOWN));
}

TEST(ThermalModel, AtTheLimitTemperatureIsOneExponential) {
    const gpu_profile& p = seeded("rtx-4090");
    thermal_state s = initial_thermal_state(p);
    s.power_w = p.power_default_w;  // already at the limit: only the heatsink lags
    const double L = p.power_default_w, R = p.thermal_resistance_c_per_w, A = p.ambient_temp_c;
    for (double t : {1.0, 7.0, 20.0, 60.0}) {
        thermal_state x = s;
        advance(p, x, t, 1.0);
        EXPECT_NEAR(x.power_w, L, 1e-9);
        EXPECT_NEAR(x.temperature_c, A + L * R + (s.temperature_c - A - L * R) * std::exp(-t / kTempTau), 1e-9);
    }
}

TEST(ThermalModel, StepSizeDoesNotChangeTheResult) {
    const gpu_profile& p = seeded("rtx-3080");
    thermal_state fine = initial_thermal_state(p), coarse = fine;
    run(p, fine, 40, 0.001, 0.6);
    advance(p, coarse, 40, 0.6);
    EXPECT_NEAR(fine.temperature_c, coarse.temperature_c, 1e-9);
    EXPECT_NEAR(fine.power_w, coarse.power_w, 1e-9);
}

TEST(ThermalModel, LargeStepsAreStable) {
    const gpu_profile& p = seeded("h100-pcie");
    const double L = p.power_default_w, R = p.thermal_resistance_c_per_w, A = p.ambient_temp_c;
    for (double dt : {1e3, 1e4, 1e7, 1e12}) {
        thermal_state s = initial_thermal_state(p);
        advance(p, s, dt, 1.0);
        EXPECT_TRUE(std::isfinite(s.temperature_c) && std::isfinite(s.power_w)) << dt;
        EXPECT_NEAR(s.temperature_c, A + L * R, 1e-9) << dt;  // 50+ lags: settled
        EXPECT_NEAR(s.power_w, L, 1e-9) << dt;
    }
    // Nonsense inputs leave the state as it was (bad dt) or clamp (bad activity).
    thermal_state s = initial_thermal_state(p);
    const thermal_state before = s;
    advance(p, s, std::numeric_limits<double>::quiet_NaN(), 1.0);
    advance(p, s, -5, 1.0);
    advance(p, s, std::numeric_limits<double>::infinity(), 1.0);
    EXPECT_DOUBLE_EQ(s.temperature_c, before.temperature_c);
    advance(p, s, 1e6, 7.0);
    EXPECT_NEAR(s.power_w, L, 1e-9);
    advance(p, s, 1e6, std::numeric_limits<double>::quiet_NaN());
    EXPECT_NEAR(s.power_w, idle_power(p), 1e-9);
}

TEST(ThermalModel, FanFollowsTheCurveLinearlyAndClamps) {
    const gpu_profile p = fan_board();
    thermal_state s = initial_thermal_state(p);
    const struct {
        double temp, fan;
    } cases[] = {{20, 30}, {40, 30}, {50, 37.5}, {60, 45}, {67.5, 57.5}, {75, 70}, {80, 85}, {85, 100}, {99, 100}};
    for (const auto& c : cases) {
        s.temperature_c = c.temp;
        advance(p, s, 0, 0);
        EXPECT_NEAR(s.fan_percent, c.fan, 1e-12) << c.temp << " C";
    }
}

TEST(ThermalModel, FixedFanHoldsAndAutomaticReturnsToTheCurve) {
    const gpu_profile p = fan_board();
    thermal_state s = initial_thermal_state(p);
    std::string error;
    cb_gpu_settings r = request(CB_SET_FAN);
    r.fan_percent = 55;
    ASSERT_EQ(apply_settings(p, s.settings, r, error), CB_OK) << error;
    s.temperature_c = 80;
    advance(p, s, 0, 0);
    EXPECT_DOUBLE_EQ(s.fan_percent, 55);
    r.fan_percent = -1;
    ASSERT_EQ(apply_settings(p, s.settings, r, error), CB_OK) << error;
    advance(p, s, 0, 0);
    EXPECT_DOUBLE_EQ(s.fan_percent, 85);
}

TEST(ThermalModel, PastSlowdownClocksFallLinearlyWithThermalReasons) {
    const gpu_profile& p = seeded("rtx-5090");
    thermal_state s = initial_thermal_state(p);
    s.activity = 1;
    s.temperature_c = p.slowdown_temp_c - 1;
    advance(p, s, 0, 1);
    EXPECT_EQ(s.sm_clock_mhz, p.boost_clock_mhz);
    EXPECT_FALSE(s.throttle_reasons & (CB_THROTTLE_SW_THERMAL | CB_THROTTLE_HW_SLOWDOWN));

    const double span = p.shutdown_temp_c - p.slowdown_temp_c;
    for (double frac : {0.25, 0.5, 1.0, 2.0}) {
        s.temperature_c = p.slowdown_temp_c + frac * span;
        advance(p, s, 0, 1);
        const double f = std::min(frac, 1.0);
        const double expected = p.boost_clock_mhz - f * (p.boost_clock_mhz - kIdleClock);
        EXPECT_NEAR(s.sm_clock_mhz, expected, 1.0) << frac;
        EXPECT_TRUE(s.throttle_reasons & CB_THROTTLE_SW_THERMAL);
        EXPECT_TRUE(s.throttle_reasons & CB_THROTTLE_HW_SLOWDOWN);
    }
}

TEST(ThermalModel, ThrottlingHoldsAnOverheatingBoardBelowItsOpenLoopTemperature) {
    gpu_profile p = seeded("rtx-5090");
    p.thermal_resistance_c_per_w = 150.0 / p.power_default_w;  // would reach ambient + 150 C unthrottled
    thermal_state s = initial_thermal_state(p);
    run(p, s, 600, 0.1, 1.0);
    EXPECT_GT(s.temperature_c, p.slowdown_temp_c);
    EXPECT_LT(s.temperature_c, p.shutdown_temp_c);
    EXPECT_LT(s.power_w, p.power_default_w);
    EXPECT_LT(s.sm_clock_mhz, p.boost_clock_mhz);
    EXPECT_TRUE(s.throttle_reasons & CB_THROTTLE_HW_SLOWDOWN);
    // Equilibrium: power matches the throttled clock's share, temperature matches power.
    EXPECT_NEAR(s.temperature_c, p.ambient_temp_c + s.power_w * p.thermal_resistance_c_per_w, 0.05);
    const double idle = idle_power(p);
    EXPECT_NEAR(s.power_w, idle + (p.power_default_w - idle) * s.sm_clock_mhz / p.boost_clock_mhz, 1.0);
}

TEST(ThermalModel, LockedClocksHoldUnderLoadAndScalePower) {
    const gpu_profile& p = seeded("rtx-4080-super");
    thermal_state s = initial_thermal_state(p);
    std::string error;
    cb_gpu_settings r = request(CB_SET_CLOCKS);
    r.sm_clock_mhz = 1500;
    r.memory_clock_mhz = 5000;
    ASSERT_EQ(apply_settings(p, s.settings, r, error), CB_OK) << error;
    run(p, s, 30, 0.1, 1.0);
    EXPECT_EQ(s.sm_clock_mhz, 1500u);
    EXPECT_EQ(s.mem_clock_mhz, 5000u);
    EXPECT_TRUE(s.throttle_reasons & CB_THROTTLE_APP_CLOCKS);
    EXPECT_FALSE(s.throttle_reasons & CB_THROTTLE_SW_POWER_CAP);
    const double idle = idle_power(p);
    EXPECT_NEAR(s.power_w, idle + (p.power_default_w - idle) * 1500.0 / p.boost_clock_mhz, 1e-6);
    // Idle: the board still drops to its idle clock.
    run(p, s, 10, 0.1, 0.0);
    EXPECT_EQ(s.sm_clock_mhz, kIdleClock);
    // Clocks 0: back to the defaults.
    r.sm_clock_mhz = 0;
    r.memory_clock_mhz = 0;
    ASSERT_EQ(apply_settings(p, s.settings, r, error), CB_OK) << error;
    run(p, s, 10, 0.1, 1.0);
    EXPECT_EQ(s.sm_clock_mhz, p.boost_clock_mhz);
    EXPECT_EQ(s.mem_clock_mhz, p.memory_clock_mhz);
}

TEST(ThermalModel, LoweringThePowerLimitLowersPowerAndClocks) {
    const gpu_profile& p = seeded("rtx-5090");
    thermal_state s = initial_thermal_state(p);
    run(p, s, 10, 0.1, 1.0);
    const double before = s.power_w;
    std::string error;
    cb_gpu_settings r = request(CB_SET_POWER_LIMIT);
    r.power_limit_w = p.power_min_w;
    ASSERT_EQ(apply_settings(p, s.settings, r, error), CB_OK) << error;
    advance(p, s, 0.001, 1.0);
    EXPECT_LE(s.power_w, p.power_min_w);  // enforced at once
    EXPECT_LT(s.power_w, before);
    run(p, s, 10, 0.1, 1.0);
    EXPECT_NEAR(s.power_w, p.power_min_w, 1e-6);
    const double idle = idle_power(p);
    const double clock = p.boost_clock_mhz * std::cbrt((p.power_min_w - idle) / (p.power_default_w - idle));
    EXPECT_NEAR(s.sm_clock_mhz, clock, 1.0);
    EXPECT_TRUE(s.throttle_reasons & CB_THROTTLE_SW_POWER_CAP);
}

TEST(ThermalModel, PerformanceStateFloorCapsClocks) {
    const gpu_profile& p = seeded("rtx-4070");
    const struct {
        int32_t pstate;
        uint32_t clock;
    } cases[] = {{0, p.boost_clock_mhz}, {2, p.boost_clock_mhz}, {3, p.base_clock_mhz},
                 {5, p.base_clock_mhz},  {8, kIdleClock},        {15, kIdleClock}};
    for (const auto& c : cases) {
        thermal_state s = initial_thermal_state(p);
        std::string error;
        cb_gpu_settings r = request(CB_SET_PSTATE);
        r.performance_state = c.pstate;
        ASSERT_EQ(apply_settings(p, s.settings, r, error), CB_OK) << error;
        run(p, s, 5, 0.1, 1.0);
        EXPECT_EQ(s.performance_state, c.pstate);
        EXPECT_EQ(s.sm_clock_mhz, c.clock) << "P" << c.pstate;
        run(p, s, 5, 0.1, 0.0);
        EXPECT_EQ(s.performance_state, std::max(8, c.pstate));
    }
}

TEST(ThermalModel, SettingLimitsComeFromTheProfile) {
    const gpu_profile& p = seeded("rtx-5090");
    const cb_gpu_setting_limits l = setting_limits(p);
    EXPECT_EQ(l.struct_size, sizeof l);
    EXPECT_EQ(l.min_sm_clock_mhz, kIdleClock);
    EXPECT_EQ(l.max_sm_clock_mhz, p.max_clock_mhz);
    EXPECT_EQ(l.max_memory_clock_mhz, p.memory_clock_mhz);
    EXPECT_LE(l.min_memory_clock_mhz, l.max_memory_clock_mhz);
    EXPECT_EQ(l.min_power_w, p.power_min_w);
    EXPECT_EQ(l.max_power_w, p.power_max_w);
    EXPECT_EQ(l.default_power_w, p.power_default_w);
    EXPECT_EQ(l.min_performance_state, 0);
    EXPECT_EQ(l.max_performance_state, 15);
    EXPECT_EQ(l.fan_control, 1);
    EXPECT_EQ(setting_limits(seeded("a100-pcie-40gb")).fan_control, 0);
}

TEST(ThermalModel, OutOfBoundsSettingsAreRefusedAndChangeNothing) {
    const gpu_profile& p = seeded("rtx-5090");
    const cb_gpu_setting_limits l = setting_limits(p);
    thermal_settings settings = initial_thermal_state(p).settings;
    settings.fan_percent = 40;
    const thermal_settings before = settings;

    struct refusal {
        cb_gpu_settings r;
        std::string message;
    };
    std::vector<refusal> cases;
    cb_gpu_settings r = request(CB_SET_POWER_LIMIT | CB_SET_FAN);
    r.power_limit_w = 900;
    r.fan_percent = 60;  // valid, but must not apply either
    cases.push_back({r, range_text("power limit", 900, l.min_power_w, l.max_power_w, " W")});
    r.power_limit_w = std::numeric_limits<double>::quiet_NaN();
    cases.push_back({r, "power limit"});
    r = request(CB_SET_CLOCKS | CB_SET_PSTATE);
    r.sm_clock_mhz = p.max_clock_mhz + 1;
    r.performance_state = 3;
    cases.push_back({r, range_text("SM clock", p.max_clock_mhz + 1, l.min_sm_clock_mhz, l.max_sm_clock_mhz, " MHz")});
    r.sm_clock_mhz = 100;
    cases.push_back({r, "SM clock 100 MHz"});
    r.sm_clock_mhz = 0;
    r.memory_clock_mhz = p.memory_clock_mhz + 1;
    cases.push_back({r, "memory clock"});
    r = request(CB_SET_PSTATE);
    r.performance_state = 16;
    cases.push_back({r, "performance state P16 outside P0..P15"});
    r.performance_state = -1;
    cases.push_back({r, "performance state"});
    r = request(CB_SET_FAN);
    r.fan_percent = 101;
    cases.push_back({r, "fan speed 101%"});
    r.fan_percent = -2;
    cases.push_back({r, "fan speed -2%"});
    cases.push_back({request(1u << 7), "unknown settings fields"});

    for (const refusal& c : cases) {
        std::string error;
        EXPECT_EQ(apply_settings(p, settings, c.r, error), CB_ERR_INVALID_ARGUMENT) << c.message;
        EXPECT_NE(error.find(c.message), std::string::npos) << "got: " << error;
        EXPECT_TRUE(same_settings(settings, before)) << c.message;
    }
}

TEST(ThermalModel, FanOnAPassiveBoardIsUnsupported) {
    const gpu_profile& p = seeded("l4");
    thermal_settings settings = initial_thermal_state(p).settings;
    const thermal_settings before = settings;
    std::string error;
    cb_gpu_settings r = request(CB_SET_FAN | CB_SET_POWER_LIMIT);
    r.fan_percent = 50;
    r.power_limit_w = p.power_min_w;
    EXPECT_EQ(apply_settings(p, settings, r, error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("fan"), std::string::npos) << error;
    EXPECT_TRUE(same_settings(settings, before));
    // "Automatic" is what a passive board already does, so a read-modify-write of all fields works.
    cb_gpu_settings all = settings_of(settings);
    all.power_limit_w = p.power_min_w;
    EXPECT_EQ(apply_settings(p, settings, all, error), CB_OK) << error;
    EXPECT_EQ(settings.power_limit_w, p.power_min_w);
}

TEST(ThermalModel, ValidSettingsApplyTogetherAndReadBack) {
    const gpu_profile& p = seeded("rtx-5090");
    thermal_settings settings = initial_thermal_state(p).settings;
    cb_gpu_settings r = request(CB_SET_CLOCKS | CB_SET_POWER_LIMIT | CB_SET_FAN | CB_SET_PSTATE);
    r.sm_clock_mhz = p.max_clock_mhz;
    r.memory_clock_mhz = p.memory_clock_mhz;
    r.power_limit_w = p.power_max_w;
    r.fan_percent = 100;
    r.performance_state = 2;
    std::string error;
    ASSERT_EQ(apply_settings(p, settings, r, error), CB_OK) << error;
    EXPECT_TRUE(error.empty());
    const cb_gpu_settings back = settings_of(settings);
    EXPECT_EQ(back.struct_size, sizeof back);
    EXPECT_EQ(back.fields, uint32_t{CB_SET_CLOCKS | CB_SET_POWER_LIMIT | CB_SET_FAN | CB_SET_PSTATE});
    EXPECT_EQ(back.sm_clock_mhz, r.sm_clock_mhz);
    EXPECT_EQ(back.memory_clock_mhz, r.memory_clock_mhz);
    EXPECT_EQ(back.power_limit_w, r.power_limit_w);
    EXPECT_EQ(back.fan_percent, 100);
    EXPECT_EQ(back.performance_state, 2);
    // Only the named fields change.
    cb_gpu_settings only_fan = request(CB_SET_FAN);
    only_fan.fan_percent = -1;
    ASSERT_EQ(apply_settings(p, settings, only_fan, error), CB_OK) << error;
    EXPECT_EQ(settings.fan_percent, -1);
    EXPECT_EQ(settings.power_limit_w, p.power_max_w);
}

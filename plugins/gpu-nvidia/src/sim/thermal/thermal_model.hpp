// The simulated GPU's thermal, power, fan and clock model, as plain data plus free functions so
// the state can live in a file shared between processes (live_state/).
//
//  - power rises with engine activity from the idle power toward the power limit;
//  - temperature follows a first-order model toward ambient + power x thermal resistance;
//  - the fan follows the profile's fan curve (or a fixed speed when set);
//  - SM clocks throttle past the slowdown temperature and when power hits the limit, and the
//    throttle reasons say why (CB_THROTTLE_* of gpu.h);
//  - settings (locked clocks, power limit, fan, performance state) are checked against the
//    profile's bounds and refused outside them.
// Every constant that is not in the profile is a documented model choice in thermal_model.cpp.
#pragma once

#include "common/profiles/profile.hpp"

#include <cudabridge/gpu.h>

#include <cstdint>
#include <string>

namespace cudabridge::nv {

// What users set. Trivially copyable (it lives in shared memory).
struct thermal_settings {
    uint32_t locked_sm_clock_mhz = 0;   // 0: default (boost, throttled as needed)
    uint32_t locked_mem_clock_mhz = 0;  // 0: default
    double power_limit_w = 0;           // 0 before init: set from the profile's default
    int32_t fan_percent = -1;           // -1: automatic (fan curve)
    int32_t performance_state = 0;      // 0..15 requested floor (P0 fastest)
};

// The model's state. Trivially copyable (it lives in shared memory).
struct thermal_state {
    thermal_settings settings;
    double temperature_c = 0;
    double power_w = 0;
    double fan_percent = 0;  // < 0: passively cooled board
    uint32_t sm_clock_mhz = 0;
    uint32_t mem_clock_mhz = 0;
    uint32_t throttle_reasons = 0;  // CB_THROTTLE_* bits
    int32_t performance_state = 8;  // current P-state
    double activity = 0;            // smoothed engine activity 0..1 (for utilization)
};

// The state of an idle board at ambient temperature with default settings.
thermal_state initial_thermal_state(const gpu_profile& profile);

// Advances the model by dt_seconds (>= 0; large steps are integrated stably) during which the
// engines were busy for the fraction `activity` (0..1) of the time.
void advance(const gpu_profile& profile, thermal_state& state, double dt_seconds, double activity);

// Bounds of the settings, from the profile.
cb_gpu_setting_limits setting_limits(const gpu_profile& profile);

// Applies the fields named in `request.fields` (CB_SET_*). Out of bounds: CB_ERR_INVALID_ARGUMENT
// with `error` naming the field and the allowed range, and nothing changes. A fan setting on a
// passive board is CB_ERR_UNSUPPORTED.
cb_status apply_settings(const gpu_profile& profile, thermal_settings& settings, const cb_gpu_settings& request,
                         std::string& error);

// The current settings in the ABI's form (fields = all CB_SET_* bits).
cb_gpu_settings settings_of(const thermal_settings& settings);

}  // namespace cudabridge::nv

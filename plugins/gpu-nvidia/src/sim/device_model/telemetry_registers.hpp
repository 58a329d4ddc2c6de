// The telemetry, settings and bounds registers of our BAR0 block (hw::reg::temp_mc ..
// max_operating_temp_mc) over the board's thermal model: readouts in integer units, settings
// writes checked by the thermal model and refused outside the profile's bounds.
#pragma once

#include "sim/device_model/board_telemetry.hpp"
#include "common/profiles/profile.hpp"

#include <cudabridge/abi.h>

#include <cstdint>

namespace cudabridge::nv {

// False when `offset` is not a telemetry, settings or bounds register (settings_error is the
// caller's: it is per model).
bool read_board_register(board_telemetry& telemetry, const gpu_profile& profile, uint32_t offset, uint32_t& value);

// A settings register write; false when `offset` is not one. `outcome` receives CB_OK or why it
// was refused (the register then keeps its value).
bool write_board_register(board_telemetry& telemetry, uint32_t offset, uint32_t value, cb_status& outcome);

}  // namespace cudabridge::nv

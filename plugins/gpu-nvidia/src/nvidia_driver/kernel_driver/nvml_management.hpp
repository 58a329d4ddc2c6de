// Telemetry and settings of a real GPU through NVML, by NVML index. Reads need no privilege;
// every change does (NVML_ERROR_NO_PERMISSION becomes CB_ERR_PERMISSION, "needs root ...").
// Requests are checked against the driver's own bounds before anything is changed.
#pragma once

#include <cudabridge/gpu.h>

#include "nvidia_driver/cuda_driver/nvml_library.hpp"
#include "nvidia_driver/kernel_driver/telemetry_details.hpp"
#include "common/errors/fail.hpp"

namespace cudabridge::nv {

// cb_gpu_telemetry (read_nvml_telemetry) plus the volatile ECC counts.
cb_status read_gpu_telemetry(const nvml_library& nvml, int index, cb_gpu_telemetry& out, std::string& error);
cb_status read_gpu_telemetry_details(const nvml_library& nvml, int index, kd_telemetry_details& out,
                                     std::string& error);

// Clock ranges from the supported-clock tables (else 0 .. the max clock), the power-limit range
// and default, fan control when the board has fans. Performance states are reported as 0..15.
cb_status read_setting_limits(const nvml_library& nvml, int index, cb_gpu_setting_limits& out, std::string& error);

// The current power limit and performance state from NVML; clocks and fan from `applied` (what
// this process set), since NVML cannot read a locked clock back.
cb_status read_settings(const nvml_library& nvml, int index, const cb_gpu_settings& applied, cb_gpu_settings& out,
                        std::string& error);

// Applies the fields named in request.fields; records what succeeded in `applied`.
cb_status apply_gpu_settings(const nvml_library& nvml, int index, const cb_gpu_settings& request,
                             cb_gpu_settings& applied, std::string& error);

}  // namespace cudabridge::nv

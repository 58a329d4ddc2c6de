// One cb_gpu_telemetry sample read from NVML (measured on hardware: is_simulated = 0).
#pragma once

#include <cudabridge/gpu.h>

#include <string>

#include "nvidia_driver/cuda_driver/nvml_library.hpp"

namespace cudabridge::nv {

// Fills `out` for NVML device `index`. Readings the board or driver does not support keep their
// neutral value (0; fan_percent -1; performance_state -1) and do not fail the call. Fails only
// when NVML is unavailable or the device cannot be opened. time_ns: CLOCK_MONOTONIC (steady_clock).
cb_status read_nvml_telemetry(const nvml_library& nvml, unsigned int index, cb_gpu_telemetry& out,
                              std::string* message = nullptr);

}  // namespace cudabridge::nv

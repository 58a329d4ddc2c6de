// NVML readings of a real GPU that cb_gpu_telemetry has no field for (nvidia-smi -q's
// temperature thresholds, power limits, max clocks, PCIe link, throughput and replays, energy).
#pragma once

#include <cudabridge/gpu.h>

#include <cstdint>

namespace cudabridge::nv {

// A value the board or driver does not report stays 0.
struct kd_telemetry_details {
    cb_gpu_telemetry telemetry{};
    double slowdown_temp_c = 0, shutdown_temp_c = 0, max_operating_temp_c = 0;
    double power_limit_default_w = 0, power_limit_min_w = 0, power_limit_max_w = 0;
    uint32_t max_sm_clock_mhz = 0, max_memory_clock_mhz = 0;
    uint32_t pcie_max_link_gen = 0, pcie_max_link_width = 0;
    uint32_t pcie_tx_kb_per_s = 0, pcie_rx_kb_per_s = 0;  // over NVML's 20 ms window
    uint32_t pcie_replays = 0;
    uint64_t energy_mj = 0;  // since the driver loaded (Volta and newer)
};

}  // namespace cudabridge::nv

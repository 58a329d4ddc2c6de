#include "nvidia_driver/cuda_driver/nvml_telemetry.hpp"

#include <chrono>
#include <cstring>

namespace cudabridge::nv {

namespace {
constexpr uint32_t known_throttle_bits = CB_THROTTLE_IDLE | CB_THROTTLE_APP_CLOCKS | CB_THROTTLE_SW_POWER_CAP |
                                         CB_THROTTLE_HW_SLOWDOWN | CB_THROTTLE_SW_THERMAL | CB_THROTTLE_HW_THERMAL;
}

cb_status read_nvml_telemetry(const nvml_library& nvml, unsigned int index, cb_gpu_telemetry& out,
                              std::string* message) {
    std::memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    out.is_simulated = 0;  // measured on hardware
    out.fan_percent = -1.0;
    out.performance_state = -1;

    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = nvml.device(index, dev, message); s != CB_OK) return s;
    const nvml_api& api = nvml.api();
    out.time_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());

    unsigned int v = 0;
    if (api.nvmlDeviceGetTemperature != nullptr &&
        api.nvmlDeviceGetTemperature(dev, nvml::NVML_TEMPERATURE_GPU, &v) == nvml::NVML_SUCCESS)
        out.temperature_c = v;
    if (api.nvmlDeviceGetPowerUsage != nullptr && api.nvmlDeviceGetPowerUsage(dev, &v) == nvml::NVML_SUCCESS)
        out.power_w = v / 1000.0;
    if (api.nvmlDeviceGetEnforcedPowerLimit != nullptr &&
        api.nvmlDeviceGetEnforcedPowerLimit(dev, &v) == nvml::NVML_SUCCESS)
        out.power_limit_w = v / 1000.0;
    if (api.nvmlDeviceGetFanSpeed != nullptr && api.nvmlDeviceGetFanSpeed(dev, &v) == nvml::NVML_SUCCESS)
        out.fan_percent = v;
    if (api.nvmlDeviceGetClockInfo != nullptr) {
        if (api.nvmlDeviceGetClockInfo(dev, nvml::NVML_CLOCK_SM, &v) == nvml::NVML_SUCCESS) out.sm_clock_mhz = v;
        if (api.nvmlDeviceGetClockInfo(dev, nvml::NVML_CLOCK_MEM, &v) == nvml::NVML_SUCCESS) out.memory_clock_mhz = v;
    }
    nvml::nvmlUtilization_t util{};
    if (api.nvmlDeviceGetUtilizationRates != nullptr &&
        api.nvmlDeviceGetUtilizationRates(dev, &util) == nvml::NVML_SUCCESS) {
        out.gpu_utilization = util.gpu;
        out.memory_utilization = util.memory;
    }
    nvml::nvmlMemory_t mem{};
    if (api.nvmlDeviceGetMemoryInfo != nullptr && api.nvmlDeviceGetMemoryInfo(dev, &mem) == nvml::NVML_SUCCESS) {
        out.memory_used = mem.used;
        out.memory_total = mem.total;
    }
    int pstate = 0;
    if (api.nvmlDeviceGetPerformanceState != nullptr &&
        api.nvmlDeviceGetPerformanceState(dev, &pstate) == nvml::NVML_SUCCESS && pstate >= 0 && pstate <= 15)
        out.performance_state = pstate;
    unsigned long long reasons = 0;
    if (api.nvmlDeviceGetCurrentClocksEventReasons != nullptr &&
        api.nvmlDeviceGetCurrentClocksEventReasons(dev, &reasons) == nvml::NVML_SUCCESS)
        out.throttle_reasons = static_cast<uint32_t>(reasons) & known_throttle_bits;
    if (api.nvmlDeviceGetCurrPcieLinkGeneration != nullptr &&
        api.nvmlDeviceGetCurrPcieLinkGeneration(dev, &v) == nvml::NVML_SUCCESS)
        out.pcie_link_gen = v;
    if (api.nvmlDeviceGetCurrPcieLinkWidth != nullptr &&
        api.nvmlDeviceGetCurrPcieLinkWidth(dev, &v) == nvml::NVML_SUCCESS)
        out.pcie_link_width = v;
    return CB_OK;
}

}  // namespace cudabridge::nv

#include "nvidia_driver/kernel_driver/nvml_management.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nvidia_driver/cuda_driver/nvml_telemetry.hpp"

namespace cudabridge::nv {

namespace {

cb_status handle_of(const nvml_library& nvml, int index, nvml::nvmlDevice_t& dev, std::string& error) {
    if (index < 0) return fail(error, CB_ERR_UNSUPPORTED, "no NVML device for this GPU");
    return nvml.device(static_cast<unsigned>(index), dev, &error);
}

bool read_uint(nvml::nvmlDeviceGetUInt_t fn, nvml::nvmlDevice_t dev, unsigned int& v) {
    return fn != nullptr && fn(dev, &v) == nvml::NVML_SUCCESS;
}

// The supported clocks of one table, sorted; empty when NVML cannot list them.
std::vector<unsigned int> supported_memory_clocks(const nvml_api& api, nvml::nvmlDevice_t dev) {
    std::vector<unsigned int> clocks(512);
    unsigned int count = static_cast<unsigned>(clocks.size());
    if (api.nvmlDeviceGetSupportedMemoryClocks == nullptr ||
        api.nvmlDeviceGetSupportedMemoryClocks(dev, &count, clocks.data()) != nvml::NVML_SUCCESS)
        return {};
    clocks.resize(std::min<std::size_t>(count, clocks.size()));
    std::sort(clocks.begin(), clocks.end());
    return clocks;
}
std::vector<unsigned int> supported_graphics_clocks(const nvml_api& api, nvml::nvmlDevice_t dev, unsigned int mem) {
    std::vector<unsigned int> clocks(512);
    unsigned int count = static_cast<unsigned>(clocks.size());
    if (api.nvmlDeviceGetSupportedGraphicsClocks == nullptr ||
        api.nvmlDeviceGetSupportedGraphicsClocks(dev, mem, &count, clocks.data()) != nvml::NVML_SUCCESS)
        return {};
    clocks.resize(std::min<std::size_t>(count, clocks.size()));
    std::sort(clocks.begin(), clocks.end());
    return clocks;
}

unsigned int fan_count(const nvml_api& api, nvml::nvmlDevice_t dev) {
    unsigned int fans = 0;
    return read_uint(api.nvmlDeviceGetNumFans, dev, fans) ? fans : 0;
}

// Checks every requested field against the limits; nothing is changed when one is out of bounds.
cb_status check_request(const cb_gpu_settings& r, const cb_gpu_setting_limits& lim, std::string& error) {
    auto out_of = [&](const std::string& what, double v, double lo, double hi, const char* unit) {
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    what + " " + std::to_string(static_cast<long long>(std::llround(v))) + " " + unit +
                        " is outside this GPU's range " + std::to_string(static_cast<long long>(lo)) + ".." +
                        std::to_string(static_cast<long long>(hi)) + " " + unit);
    };
    if (r.fields & CB_SET_CLOCKS) {
        if (r.sm_clock_mhz != 0 && lim.max_sm_clock_mhz != 0 &&
            (r.sm_clock_mhz < lim.min_sm_clock_mhz || r.sm_clock_mhz > lim.max_sm_clock_mhz))
            return out_of("SM clock", r.sm_clock_mhz, lim.min_sm_clock_mhz, lim.max_sm_clock_mhz, "MHz");
        if (r.memory_clock_mhz != 0 && lim.max_memory_clock_mhz != 0 &&
            (r.memory_clock_mhz < lim.min_memory_clock_mhz || r.memory_clock_mhz > lim.max_memory_clock_mhz))
            return out_of("memory clock", r.memory_clock_mhz, lim.min_memory_clock_mhz, lim.max_memory_clock_mhz,
                          "MHz");
    }
    if (r.fields & CB_SET_POWER_LIMIT) {
        if (!(r.power_limit_w > 0) || !std::isfinite(r.power_limit_w))
            return fail(error, CB_ERR_INVALID_ARGUMENT, "power limit must be a positive number of watts");
        if (lim.max_power_w > 0 && (r.power_limit_w < lim.min_power_w || r.power_limit_w > lim.max_power_w))
            return out_of("power limit", r.power_limit_w, lim.min_power_w, lim.max_power_w, "W");
    }
    if (r.fields & CB_SET_FAN) {
        if (r.fan_percent != -1 && (r.fan_percent < 0 || r.fan_percent > 100))
            return fail(error, CB_ERR_INVALID_ARGUMENT, "fan speed must be 0..100 % or -1 (automatic)");
        if (!lim.fan_control) return fail(error, CB_ERR_UNSUPPORTED, "this GPU offers no fan control through NVML");
    }
    if (r.fields & CB_SET_PSTATE)
        return fail(error, CB_ERR_UNSUPPORTED,
                    "NVML has no call to force a performance state; lock the clocks instead "
                    "(the driver picks the P-state from the clocks and the load)");
    return CB_OK;
}

}  // namespace

cb_status read_gpu_telemetry(const nvml_library& nvml, int index, cb_gpu_telemetry& out, std::string& error) {
    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = handle_of(nvml, index, dev, error); s != CB_OK) return s;
    if (cb_status s = read_nvml_telemetry(nvml, static_cast<unsigned>(index), out, &error); s != CB_OK) return s;
    const nvml_api& api = nvml.api();
    unsigned long long count = 0;
    if (api.nvmlDeviceGetTotalEccErrors != nullptr) {
        if (api.nvmlDeviceGetTotalEccErrors(dev, nvml::NVML_MEMORY_ERROR_TYPE_CORRECTED, nvml::NVML_VOLATILE_ECC,
                                            &count) == nvml::NVML_SUCCESS)
            out.ecc_corrected = count;
        if (api.nvmlDeviceGetTotalEccErrors(dev, nvml::NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nvml::NVML_VOLATILE_ECC,
                                            &count) == nvml::NVML_SUCCESS)
            out.ecc_uncorrected = count;
    }
    return CB_OK;
}

cb_status read_gpu_telemetry_details(const nvml_library& nvml, int index, kd_telemetry_details& out,
                                     std::string& error) {
    out = {};
    if (cb_status s = read_gpu_telemetry(nvml, index, out.telemetry, error); s != CB_OK) return s;
    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = handle_of(nvml, index, dev, error); s != CB_OK) return s;
    const nvml_api& api = nvml.api();
    unsigned int v = 0, lo = 0, hi = 0;
    if (api.nvmlDeviceGetTemperatureThreshold != nullptr) {
        if (api.nvmlDeviceGetTemperatureThreshold(dev, nvml::NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v) ==
            nvml::NVML_SUCCESS)
            out.slowdown_temp_c = v;
        if (api.nvmlDeviceGetTemperatureThreshold(dev, nvml::NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &v) ==
            nvml::NVML_SUCCESS)
            out.shutdown_temp_c = v;
        if (api.nvmlDeviceGetTemperatureThreshold(dev, nvml::NVML_TEMPERATURE_THRESHOLD_GPU_MAX, &v) ==
            nvml::NVML_SUCCESS)
            out.max_operating_temp_c = v;
    }
    if (read_uint(api.nvmlDeviceGetPowerManagementDefaultLimit, dev, v)) out.power_limit_default_w = v / 1000.0;
    if (api.nvmlDeviceGetPowerManagementLimitConstraints != nullptr &&
        api.nvmlDeviceGetPowerManagementLimitConstraints(dev, &lo, &hi) == nvml::NVML_SUCCESS) {
        out.power_limit_min_w = lo / 1000.0;
        out.power_limit_max_w = hi / 1000.0;
    }
    if (api.nvmlDeviceGetMaxClockInfo != nullptr) {
        if (api.nvmlDeviceGetMaxClockInfo(dev, nvml::NVML_CLOCK_SM, &v) == nvml::NVML_SUCCESS) out.max_sm_clock_mhz = v;
        if (api.nvmlDeviceGetMaxClockInfo(dev, nvml::NVML_CLOCK_MEM, &v) == nvml::NVML_SUCCESS)
            out.max_memory_clock_mhz = v;
    }
    if (read_uint(api.nvmlDeviceGetMaxPcieLinkGeneration, dev, v)) out.pcie_max_link_gen = v;
    if (read_uint(api.nvmlDeviceGetMaxPcieLinkWidth, dev, v)) out.pcie_max_link_width = v;
    if (api.nvmlDeviceGetPcieThroughput != nullptr) {
        if (api.nvmlDeviceGetPcieThroughput(dev, nvml::NVML_PCIE_UTIL_TX_BYTES, &v) == nvml::NVML_SUCCESS)
            out.pcie_tx_kb_per_s = v;
        if (api.nvmlDeviceGetPcieThroughput(dev, nvml::NVML_PCIE_UTIL_RX_BYTES, &v) == nvml::NVML_SUCCESS)
            out.pcie_rx_kb_per_s = v;
    }
    if (read_uint(api.nvmlDeviceGetPcieReplayCounter, dev, v)) out.pcie_replays = v;
    unsigned long long energy = 0;
    if (api.nvmlDeviceGetTotalEnergyConsumption != nullptr &&
        api.nvmlDeviceGetTotalEnergyConsumption(dev, &energy) == nvml::NVML_SUCCESS)
        out.energy_mj = energy;
    return CB_OK;
}

cb_status read_setting_limits(const nvml_library& nvml, int index, cb_gpu_setting_limits& out, std::string& error) {
    out = {};
    out.struct_size = sizeof out;
    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = handle_of(nvml, index, dev, error); s != CB_OK) return s;
    const nvml_api& api = nvml.api();
    const std::vector<unsigned int> mem = supported_memory_clocks(api, dev);
    if (!mem.empty()) {
        out.min_memory_clock_mhz = mem.front();
        out.max_memory_clock_mhz = mem.back();
        const std::vector<unsigned int> gfx = supported_graphics_clocks(api, dev, mem.back());
        if (!gfx.empty()) {
            out.min_sm_clock_mhz = gfx.front();
            out.max_sm_clock_mhz = gfx.back();
        }
    }
    unsigned int v = 0, lo = 0, hi = 0;
    if (api.nvmlDeviceGetMaxClockInfo != nullptr) {
        if (out.max_sm_clock_mhz == 0 &&
            api.nvmlDeviceGetMaxClockInfo(dev, nvml::NVML_CLOCK_SM, &v) == nvml::NVML_SUCCESS)
            out.max_sm_clock_mhz = v;
        if (out.max_memory_clock_mhz == 0 &&
            api.nvmlDeviceGetMaxClockInfo(dev, nvml::NVML_CLOCK_MEM, &v) == nvml::NVML_SUCCESS)
            out.max_memory_clock_mhz = v;
    }
    if (api.nvmlDeviceGetPowerManagementLimitConstraints != nullptr &&
        api.nvmlDeviceGetPowerManagementLimitConstraints(dev, &lo, &hi) == nvml::NVML_SUCCESS) {
        out.min_power_w = lo / 1000.0;
        out.max_power_w = hi / 1000.0;
    }
    if (read_uint(api.nvmlDeviceGetPowerManagementDefaultLimit, dev, v)) out.default_power_w = v / 1000.0;
    out.min_performance_state = 0;
    out.max_performance_state = 15;
    out.fan_control = fan_count(api, dev) > 0 && api.nvmlDeviceSetFanSpeed_v2 != nullptr &&
                      api.nvmlDeviceSetDefaultFanSpeed_v2 != nullptr;
    return CB_OK;
}

cb_status read_settings(const nvml_library& nvml, int index, const cb_gpu_settings& applied, cb_gpu_settings& out,
                        std::string& error) {
    out = {};
    out.struct_size = sizeof out;
    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = handle_of(nvml, index, dev, error); s != CB_OK) return s;
    const nvml_api& api = nvml.api();
    out.fields = CB_SET_CLOCKS | CB_SET_FAN;
    out.sm_clock_mhz = (applied.fields & CB_SET_CLOCKS) ? applied.sm_clock_mhz : 0;
    out.memory_clock_mhz = (applied.fields & CB_SET_CLOCKS) ? applied.memory_clock_mhz : 0;
    out.fan_percent = (applied.fields & CB_SET_FAN) ? applied.fan_percent : -1;
    unsigned int mw = 0;
    if (read_uint(api.nvmlDeviceGetPowerManagementLimit, dev, mw) ||
        read_uint(api.nvmlDeviceGetEnforcedPowerLimit, dev, mw)) {
        out.power_limit_w = mw / 1000.0;
        out.fields |= CB_SET_POWER_LIMIT;
    }
    int pstate = -1;
    if (api.nvmlDeviceGetPerformanceState != nullptr &&
        api.nvmlDeviceGetPerformanceState(dev, &pstate) == nvml::NVML_SUCCESS && pstate >= 0 && pstate <= 15) {
        out.performance_state = pstate;
        out.fields |= CB_SET_PSTATE;
    } else {
        out.performance_state = -1;
    }
    return CB_OK;
}

cb_status apply_gpu_settings(const nvml_library& nvml, int index, const cb_gpu_settings& r, cb_gpu_settings& applied,
                             std::string& error) {
    cb_gpu_setting_limits limits{};
    if (cb_status s = read_setting_limits(nvml, index, limits, error); s != CB_OK) return s;
    if (cb_status s = check_request(r, limits, error); s != CB_OK) return s;
    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = handle_of(nvml, index, dev, error); s != CB_OK) return s;
    const nvml_api& api = nvml.api();
    auto call = [&](auto fn, const char* fn_name, const char* what, auto... args) -> cb_status {
        if (fn == nullptr) return fail(error, CB_ERR_UNSUPPORTED, std::string("this NVML lacks ") + fn_name);
        return nvml.check(fn(dev, args...), what, &error);
    };

    if (r.fields & CB_SET_CLOCKS) {
        cb_status s = r.sm_clock_mhz == 0
                          ? call(api.nvmlDeviceResetGpuLockedClocks, "nvmlDeviceResetGpuLockedClocks", "the GPU clocks")
                          : call(api.nvmlDeviceSetGpuLockedClocks, "nvmlDeviceSetGpuLockedClocks", "the GPU clocks",
                                 r.sm_clock_mhz, r.sm_clock_mhz);
        if (s != CB_OK) return s;
        s = r.memory_clock_mhz == 0
                ? call(api.nvmlDeviceResetMemoryLockedClocks, "nvmlDeviceResetMemoryLockedClocks", "the memory clocks")
                : call(api.nvmlDeviceSetMemoryLockedClocks, "nvmlDeviceSetMemoryLockedClocks", "the memory clocks",
                       r.memory_clock_mhz, r.memory_clock_mhz);
        // A reset the board never supported (no memory-clock locking) is no failure.
        if (s != CB_OK && !(r.memory_clock_mhz == 0 && s == CB_ERR_UNSUPPORTED)) return s;
        applied.fields |= CB_SET_CLOCKS;
        applied.sm_clock_mhz = r.sm_clock_mhz;
        applied.memory_clock_mhz = r.memory_clock_mhz;
    }
    if (r.fields & CB_SET_POWER_LIMIT) {
        const auto mw = static_cast<unsigned int>(std::llround(r.power_limit_w * 1000.0));
        if (cb_status s =
                call(api.nvmlDeviceSetPowerManagementLimit, "nvmlDeviceSetPowerManagementLimit", "the power limit", mw);
            s != CB_OK)
            return s;
        applied.fields |= CB_SET_POWER_LIMIT;
        applied.power_limit_w = r.power_limit_w;
    }
    if (r.fields & CB_SET_FAN) {
        const unsigned int fans = fan_count(api, dev);
        for (unsigned int fan = 0; fan < fans; ++fan) {
            // Manual speed makes the caller responsible for cooling; -1 hands control back.
            cb_status s = r.fan_percent < 0 ? call(api.nvmlDeviceSetDefaultFanSpeed_v2,
                                                   "nvmlDeviceSetDefaultFanSpeed_v2", "the fan speed", fan)
                                            : call(api.nvmlDeviceSetFanSpeed_v2, "nvmlDeviceSetFanSpeed_v2",
                                                   "the fan speed", fan, static_cast<unsigned int>(r.fan_percent));
            if (s != CB_OK) return s;
        }
        applied.fields |= CB_SET_FAN;
        applied.fan_percent = r.fan_percent;
    }
    return CB_OK;
}

}  // namespace cudabridge::nv

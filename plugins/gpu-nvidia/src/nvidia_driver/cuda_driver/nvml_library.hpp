// libnvidia-ml.so.1 loaded at run time: telemetry reads and the settings that need root.
//
// Versioned names first (nvmlInit_v2, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
// nvmlDeviceGetCurrentClocksEventReasons), then the older export with the same signature, as
// go-nvml and nvtop do. Only init/shutdown/error-string/count/handle are required; a missing
// optional entry point leaves its slot null and the call answers CB_ERR_UNSUPPORTED.
#pragma once

#include <cudabridge/abi.h>

#include <string>
#include <vector>

#include "nvidia_driver/cuda_driver/availability.hpp"
#include "nvidia_driver/cuda_driver/bound_symbol.hpp"
#include "nvidia_driver/cuda_driver/dynamic_library.hpp"
#include "nvidia_driver/cuda_driver/nvml_types.hpp"

namespace cudabridge::nv {

// X(member, type, versioned export, fallback export or nullptr, required)
#define CB_NV_NVML_ENTRY_POINTS(X)                                                                                     \
    X(nvmlInit, nvml::nvmlInit_t, "nvmlInit_v2", "nvmlInit", true)                                                     \
    X(nvmlShutdown, nvml::nvmlShutdown_t, "nvmlShutdown", nullptr, true)                                               \
    X(nvmlErrorString, nvml::nvmlErrorString_t, "nvmlErrorString", nullptr, true)                                      \
    X(nvmlDeviceGetCount, nvml::nvmlDeviceGetCount_t, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", true)             \
    X(nvmlDeviceGetHandleByIndex, nvml::nvmlDeviceGetHandleByIndex_t, "nvmlDeviceGetHandleByIndex_v2",                 \
      "nvmlDeviceGetHandleByIndex", true)                                                                              \
    X(nvmlDeviceGetName, nvml::nvmlDeviceGetName_t, "nvmlDeviceGetName", nullptr, false)                               \
    X(nvmlDeviceGetTemperature, nvml::nvmlDeviceGetTemperature_t, "nvmlDeviceGetTemperature", nullptr, false)          \
    X(nvmlDeviceGetTemperatureThreshold, nvml::nvmlDeviceGetTemperatureThreshold_t,                                    \
      "nvmlDeviceGetTemperatureThreshold", nullptr, false)                                                             \
    X(nvmlDeviceGetPowerUsage, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetPowerUsage", nullptr, false)                   \
    X(nvmlDeviceGetEnforcedPowerLimit, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetEnforcedPowerLimit", nullptr, false)   \
    X(nvmlDeviceGetPowerManagementLimitConstraints, nvml::nvmlDeviceGetPowerManagementLimitConstraints_t,              \
      "nvmlDeviceGetPowerManagementLimitConstraints", nullptr, false)                                                  \
    X(nvmlDeviceGetFanSpeed, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetFanSpeed", nullptr, false)                       \
    X(nvmlDeviceGetClockInfo, nvml::nvmlDeviceGetClockInfo_t, "nvmlDeviceGetClockInfo", nullptr, false)                \
    X(nvmlDeviceGetUtilizationRates, nvml::nvmlDeviceGetUtilizationRates_t, "nvmlDeviceGetUtilizationRates", nullptr,  \
      false)                                                                                                           \
    X(nvmlDeviceGetMemoryInfo, nvml::nvmlDeviceGetMemoryInfo_t, "nvmlDeviceGetMemoryInfo", nullptr, false)             \
    X(nvmlDeviceGetPerformanceState, nvml::nvmlDeviceGetPerformanceState_t, "nvmlDeviceGetPerformanceState", nullptr,  \
      false)                                                                                                           \
    X(nvmlDeviceGetCurrPcieLinkGeneration, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetCurrPcieLinkGeneration", nullptr,  \
      false)                                                                                                           \
    X(nvmlDeviceGetCurrPcieLinkWidth, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetCurrPcieLinkWidth", nullptr, false)     \
    X(nvmlDeviceGetPcieReplayCounter, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetPcieReplayCounter", nullptr, false)     \
    X(nvmlDeviceGetCurrentClocksEventReasons, nvml::nvmlDeviceGetReasons_t, "nvmlDeviceGetCurrentClocksEventReasons",  \
      "nvmlDeviceGetCurrentClocksThrottleReasons", false)                                                              \
    X(nvmlDeviceSetPowerManagementLimit, nvml::nvmlDeviceSetPowerManagementLimit_t,                                    \
      "nvmlDeviceSetPowerManagementLimit", nullptr, false)                                                             \
    X(nvmlDeviceSetGpuLockedClocks, nvml::nvmlDeviceSetGpuLockedClocks_t, "nvmlDeviceSetGpuLockedClocks", nullptr,     \
      false)                                                                                                           \
    X(nvmlDeviceResetGpuLockedClocks, nvml::nvmlDeviceReset_t, "nvmlDeviceResetGpuLockedClocks", nullptr, false)       \
    X(nvmlDeviceGetHandleByUUID, nvml::nvmlDeviceGetHandleByUUID_t, "nvmlDeviceGetHandleByUUID", nullptr, false)       \
    X(nvmlDeviceGetIndex, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetIndex", nullptr, false)                             \
    X(nvmlDeviceGetPciInfo, nvml::nvmlDeviceGetPciInfo_t, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", false) \
    X(nvmlDeviceGetPowerManagementLimit, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetPowerManagementLimit", nullptr,      \
      false)                                                                                                           \
    X(nvmlDeviceGetPowerManagementDefaultLimit, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetPowerManagementDefaultLimit", \
      nullptr, false)                                                                                                  \
    X(nvmlDeviceGetMaxClockInfo, nvml::nvmlDeviceGetClockInfo_t, "nvmlDeviceGetMaxClockInfo", nullptr, false)          \
    X(nvmlDeviceGetMaxPcieLinkGeneration, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetMaxPcieLinkGeneration", nullptr,    \
      false)                                                                                                           \
    X(nvmlDeviceGetMaxPcieLinkWidth, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetMaxPcieLinkWidth", nullptr, false)       \
    X(nvmlDeviceGetPcieThroughput, nvml::nvmlDeviceGetCounter_t, "nvmlDeviceGetPcieThroughput", nullptr, false)        \
    X(nvmlDeviceGetTotalEnergyConsumption, nvml::nvmlDeviceGetULongLong_t, "nvmlDeviceGetTotalEnergyConsumption",      \
      nullptr, false)                                                                                                  \
    X(nvmlDeviceGetTotalEccErrors, nvml::nvmlDeviceGetTotalEccErrors_t, "nvmlDeviceGetTotalEccErrors", nullptr, false) \
    X(nvmlDeviceGetNumFans, nvml::nvmlDeviceGetUInt_t, "nvmlDeviceGetNumFans", nullptr, false)                         \
    X(nvmlDeviceGetFanSpeed_v2, nvml::nvmlDeviceGetFanSpeed_v2_t, "nvmlDeviceGetFanSpeed_v2", nullptr, false)          \
    X(nvmlDeviceSetFanSpeed_v2, nvml::nvmlDeviceSetFanSpeed_v2_t, "nvmlDeviceSetFanSpeed_v2", nullptr, false)          \
    X(nvmlDeviceSetDefaultFanSpeed_v2, nvml::nvmlDeviceSetDefaultFanSpeed_v2_t, "nvmlDeviceSetDefaultFanSpeed_v2",     \
      nullptr, false)                                                                                                  \
    X(nvmlDeviceSetMemoryLockedClocks, nvml::nvmlDeviceSetGpuLockedClocks_t, "nvmlDeviceSetMemoryLockedClocks",        \
      nullptr, false)                                                                                                  \
    X(nvmlDeviceResetMemoryLockedClocks, nvml::nvmlDeviceReset_t, "nvmlDeviceResetMemoryLockedClocks", nullptr, false) \
    X(nvmlDeviceGetSupportedMemoryClocks, nvml::nvmlDeviceGetSupportedMemoryClocks_t,                                  \
      "nvmlDeviceGetSupportedMemoryClocks", nullptr, false)                                                            \
    X(nvmlDeviceGetSupportedGraphicsClocks, nvml::nvmlDeviceGetSupportedGraphicsClocks_t,                              \
      "nvmlDeviceGetSupportedGraphicsClocks", nullptr, false)                                                          \
    X(nvmlDeviceGetComputeRunningProcesses, nvml::nvmlDeviceGetComputeRunningProcesses_t,                              \
      "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2", false)

struct nvml_api {
#define CB_NV_NVML_MEMBER(member, type, name, fallback, required) type member = nullptr;
    CB_NV_NVML_ENTRY_POINTS(CB_NV_NVML_MEMBER)
#undef CB_NV_NVML_MEMBER
};

class nvml_library {
public:
    static constexpr const char* default_library = "libnvidia-ml.so.1";

    // Loads, resolves, nvmlInit_v2, counts devices. Never throws: see status().
    explicit nvml_library(const std::string& library = default_library);
    ~nvml_library();  // nvmlShutdown when init succeeded
    nvml_library(const nvml_library&) = delete;
    nvml_library& operator=(const nvml_library&) = delete;

    [[nodiscard]] const availability& status() const { return availability_; }
    [[nodiscard]] bool available() const { return availability_.available; }
    [[nodiscard]] const nvml_api& api() const { return api_; }
    [[nodiscard]] const std::vector<bound_symbol>& bound_symbols() const { return bound_; }
    [[nodiscard]] std::string bound_name(const std::string& api) const;

    // "NVML_ERROR_NO_PERMISSION (4): Insufficient Permissions".
    [[nodiscard]] std::string describe(nvml::nvmlReturn_t result) const;
    // cb_status for `result`; on error, when `message` is given, "<what>: <describe()>", and for
    // NO_PERMISSION "needs root (run with sudo) to change <what>: ...".
    cb_status check(nvml::nvmlReturn_t result, const char* what, std::string* message = nullptr) const;

    cb_status device(unsigned int index, nvml::nvmlDevice_t& handle, std::string* message = nullptr) const;

    // Settings (root). Power limit in milliwatts; locked SM clocks in MHz (0, 0 = reset to default).
    cb_status set_power_limit_mw(unsigned int index, unsigned int milliwatts, std::string* message = nullptr) const;
    cb_status set_locked_clocks(unsigned int index, unsigned int min_mhz, unsigned int max_mhz,
                                std::string* message = nullptr) const;

private:
    void load(const std::string& library);

    dynamic_library library_;
    nvml_api api_;
    std::vector<bound_symbol> bound_;
    availability availability_;
    bool initialized_ = false;
};

}  // namespace cudabridge::nv

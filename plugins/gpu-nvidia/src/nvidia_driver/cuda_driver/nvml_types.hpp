// The NVML types, codes and signatures CudaBridge uses, declared after nvml.h (NVML 13) so the
// loader builds without the header and never links libnvidia-ml.
#pragma once

namespace cudabridge::nv::nvml {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;

enum : nvmlReturn_t {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26,
    NVML_ERROR_NOT_READY = 27,
    NVML_ERROR_GPU_NOT_FOUND = 28,
    NVML_ERROR_INVALID_STATE = 29,
    NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
    NVML_ERROR_UNKNOWN = 999
};

enum : int { NVML_TEMPERATURE_GPU = 0 };
enum : int {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3
};
enum : int { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 };
enum : int { NVML_PSTATE_UNKNOWN = 32 };
enum : int { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum : int { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum : int { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };

struct nvmlMemory_t {  // 24 bytes, order total, free, used
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
struct nvmlUtilization_t {  // percents
    unsigned int gpu;
    unsigned int memory;
};
struct nvmlPciInfo_t {  // 68 bytes (nvmlDeviceGetPciInfo_v3)
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;  // (device id << 16) | vendor id
    unsigned int pciSubSystemId;
    char busId[32];  // "00000000:01:00.0"
};
static_assert(sizeof(nvmlPciInfo_t) == 68);
static_assert(sizeof(nvmlMemory_t) == 24);
static_assert(sizeof(nvmlUtilization_t) == 8);

extern "C" {
using nvmlInit_t = nvmlReturn_t (*)();
using nvmlShutdown_t = nvmlReturn_t (*)();
using nvmlErrorString_t = const char* (*)(nvmlReturn_t result);
using nvmlDeviceGetCount_t = nvmlReturn_t (*)(unsigned int* count);
using nvmlDeviceGetHandleByIndex_t = nvmlReturn_t (*)(unsigned int index, nvmlDevice_t* device);
using nvmlDeviceGetName_t = nvmlReturn_t (*)(nvmlDevice_t device, char* name, unsigned int length);
using nvmlDeviceGetTemperature_t = nvmlReturn_t (*)(nvmlDevice_t device, int sensor, unsigned int* temp);
using nvmlDeviceGetTemperatureThreshold_t = nvmlReturn_t (*)(nvmlDevice_t device, int threshold, unsigned int* temp);
using nvmlDeviceGetUInt_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* value);  // mW, %, gen...
using nvmlDeviceGetPowerManagementLimitConstraints_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* minLimit,
                                                                        unsigned int* maxLimit);
using nvmlDeviceGetClockInfo_t = nvmlReturn_t (*)(nvmlDevice_t device, int type, unsigned int* mhz);
using nvmlDeviceGetUtilizationRates_t = nvmlReturn_t (*)(nvmlDevice_t device, nvmlUtilization_t* u);
using nvmlDeviceGetMemoryInfo_t = nvmlReturn_t (*)(nvmlDevice_t device, nvmlMemory_t* memory);
using nvmlDeviceGetPerformanceState_t = nvmlReturn_t (*)(nvmlDevice_t device, int* pstate);
using nvmlDeviceGetReasons_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned long long* reasons);
using nvmlDeviceSetPowerManagementLimit_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int mw);
using nvmlDeviceReset_t = nvmlReturn_t (*)(nvmlDevice_t device);
using nvmlDeviceGetHandleByUUID_t = nvmlReturn_t (*)(const char* uuid, nvmlDevice_t* device);
// nvmlProcessInfo_v2_t, which nvmlDeviceGetComputeRunningProcesses_v2 and _v3 fill (NVML API
// reference, "Device Queries"): usedGpuMemory is NVML_VALUE_NOT_AVAILABLE when not known.
struct nvmlProcessInfo_t {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};
inline constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE = ~0ull;
using nvmlDeviceGetComputeRunningProcesses_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* infoCount,
                                                                nvmlProcessInfo_t* infos);
using nvmlDeviceGetPciInfo_t = nvmlReturn_t (*)(nvmlDevice_t device, nvmlPciInfo_t* pci);
using nvmlDeviceGetCounter_t = nvmlReturn_t (*)(nvmlDevice_t device, int which, unsigned int* value);
using nvmlDeviceGetULongLong_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned long long* value);
using nvmlDeviceGetFanSpeed_v2_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int fan, unsigned int* percent);
using nvmlDeviceSetFanSpeed_v2_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int fan, unsigned int percent);
using nvmlDeviceSetDefaultFanSpeed_v2_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int fan);
using nvmlDeviceGetSupportedMemoryClocks_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* count,
                                                              unsigned int* clocksMHz);
using nvmlDeviceGetSupportedGraphicsClocks_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int memoryClockMHz,
                                                                unsigned int* count, unsigned int* clocksMHz);
using nvmlDeviceGetTotalEccErrors_t = nvmlReturn_t (*)(nvmlDevice_t device, int errorType, int counterType,
                                                       unsigned long long* count);
using nvmlDeviceSetGpuLockedClocks_t = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int minMHz, unsigned int maxMHz);
}

}  // namespace cudabridge::nv::nvml

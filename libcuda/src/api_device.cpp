// Devices: what the driver API asks about one. The answers are the runtime's (the same
// attribute table: CUdevice_attribute and cudaDeviceAttr share their numbers).
#include "contexts.hpp"
#include "driver_attributes.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"
#include "versioned_api.hpp"

#include <cstring>

using namespace cudabridge::libcuda;

namespace {

CUresult properties(CUdevice device, cudaDeviceProp& out) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    return from_runtime(cudabridge::cudart::get_properties(&out, device));
}

}  // namespace

extern "C" {

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(ordinal); r != CUDA_SUCCESS) return r;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    if (!initialized()) return fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    return from_runtime(cbGetDeviceCount(count));
}

CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
    if (!name || length <= 0) return CUDA_ERROR_INVALID_VALUE;
    cudaDeviceProp p{};
    if (CUresult r = properties(device, p); r != CUDA_SUCCESS) return r;
    std::strncpy(name, p.name, static_cast<size_t>(length) - 1);
    name[length - 1] = '\0';
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) {
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    cudaDeviceProp p{};
    if (CUresult r = properties(device, p); r != CUDA_SUCCESS) return r;
    static_assert(sizeof p.uuid == sizeof *uuid);
    std::memcpy(uuid, &p.uuid, sizeof *uuid);
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice device) { return cuDeviceGetUuid_v2(uuid, device); }

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    cudaDeviceProp p{};
    if (CUresult r = properties(device, p); r != CUDA_SUCCESS) return r;
    *bytes = p.totalGlobalMem;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device) {
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    if (driver_only_attribute(attribute, *value)) return CUDA_SUCCESS;
    return from_runtime(cudaDeviceGetAttribute(value, attribute, device));
}

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device) {
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    cudaDeviceProp p{};
    if (CUresult r = properties(device, p); r != CUDA_SUCCESS) return r;
    *major = p.major;
    *minor = p.minor;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceGetPCIBusId(bus_id, length, device));
}

CUresult cuDeviceGetByPCIBusId(CUdevice* device, const char* bus_id) {
    if (!initialized()) return fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    return from_runtime(cudaDeviceGetByPCIBusId(device, bus_id));
}

CUresult cuDeviceCanAccessPeer(int* can, CUdevice device, CUdevice peer) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    if (CUresult r = check_device(peer); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceCanAccessPeer(can, device, peer));
}

}  // extern "C"

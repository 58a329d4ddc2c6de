// Devices: count, choice, properties and attributes, synchronization, reset, versions.
#include "device_attributes.hpp"
#include "device_limits.hpp"
#include "errors.hpp"
#include "host_functions.hpp"
#include "managed_variables.hpp"
#include "per_thread_stream.hpp"
#include "registration.hpp"
#include "run_summary.hpp"
#include "versioned_api.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <strings.h>

using namespace cudabridge::cudart;

namespace {

// What the device's GPU family gives of managed and zero-copy memory (it is asked; a family
// without the entries answers 0). Concurrent managed access is 0: the host synchronizes before
// it touches managed memory a kernel may be using, as on Windows and before Pascal.
void fill_memory_features(int device, cudaDeviceProp& c) {
    auto ask = [device](cbDeviceAttr a) {
        int v = 0;
        return cbDeviceGetAttribute(&v, a, device) == cbSuccess ? v : 0;
    };
    c.managedMemory = ask(cbDevAttrManagedMemory);
    c.canMapHostMemory = ask(cbDevAttrCanMapHostMemory);
    c.canUseHostPointerForRegisteredMem = ask(cbDevAttrCanUseHostPointerForRegisteredMem);
    c.concurrentManagedAccess = ask(cbDevAttrConcurrentManagedAccess);
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
    if (!count) return record(cudaErrorInvalidValue);
    *count = 0;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess)
        return e == cudaErrorNoDevice ? e : record(cudaErrorNoDevice);
    if (cbError_t e = cbGetDeviceCount(count); e != cbSuccess) return record(e);
    return *count > 0 ? cudaSuccess : record(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbSetDevice(device));
}

cudaError_t cudaGetDevice(int* device) {
    if (!device) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbGetDevice(device));
}

}  // extern "C"

cudaError_t cudabridge::cudart::get_properties(cudaDeviceProp* prop, int device) {
    if (!prop) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbDeviceProp p{};
    if (cudaError_t e = device_properties(device, p); e != cudaSuccess) return e;
    fill_cuda_properties(p, *prop);
    fill_memory_features(device, *prop);
    return cudaSuccess;
}

extern "C" {

cudaError_t cudaDeviceGetAttribute(int* value, int attribute, int device) {
    if (!value) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbDeviceProp p{};
    if (cudaError_t e = device_properties(device, p); e != cudaSuccess) return e;
    cudaDeviceProp c{};
    fill_cuda_properties(p, c);
    fill_memory_features(device, c);
    if (!attribute_of(c, p, attribute, *value))
        return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: no such attribute");
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    wait_for_host_functions(nullptr);
    if (cbError_t e = cbDeviceSynchronize(); e != cbSuccess) return record(e);
    settle_timings(false);
    return managed_variables_synchronized(true);
}

cudaError_t cudaDeviceReset(void) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    int device = 0;
    (void)cbGetDevice(&device);
    settle_timings(true);  // the reset frees the events that time launches
    const cbError_t e = cbDeviceReset();
    registered().forget_modules_of(device);  // the reset freed them, the timing events and streams
    forget_timing_events();
    forget_per_thread_streams();
    if (e != cbSuccess) return record(e);
    rebind_managed_variables_after_reset(device);
    clear_errors_after_reset();
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
    if (!version) return record(cudaErrorInvalidValue);
    *version = 13000;  // the CUDA runtime ABI this library provides
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
    if (!version) return record(cudaErrorInvalidValue);
    *version = 13000;  // the newest runtime this library serves (no NVIDIA driver on a simulated eGPU)
    return cudaSuccess;
}

namespace {
unsigned device_flags = 0;  // cudaSetDeviceFlags' (the schedule and map-host bits)
}

cudaError_t cudaSetDeviceFlags(unsigned flags) {
    device_flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned* flags) {
    if (!flags) return record(cudaErrorInvalidValue);
    *flags = device_flags | 0x08;  // cudaDeviceMapHost: always on with unified addressing
    return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned /*device_flags*/, unsigned /*flags*/) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    int count = 0;
    if (cbError_t e = cbGetDeviceCount(&count); e != cbSuccess) return record(e);
    return device >= 0 && device < count ? cudaSuccess : record(cudaErrorInvalidDevice);
}

// Every device of this runtime serves any request as well as another: the current one is chosen.
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
    if (!device || !prop) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbGetDevice(device));
}

cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device) {
    if (!bus_id || length <= 0) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbDeviceProp p{};
    if (cudaError_t e = device_properties(device, p); e != cudaSuccess) return e;
    std::snprintf(bus_id, static_cast<size_t>(length), "%s", p.pciBusId);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id) {
    if (!device || !bus_id) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    int count = 0;
    if (cbError_t e = cbGetDeviceCount(&count); e != cbSuccess) return record(e);
    for (int d = 0; d < count; ++d) {
        cbDeviceProp p{};
        if (device_properties(d, p) == cudaSuccess && strcasecmp(p.pciBusId, bus_id) == 0) {
            *device = d;
            return cudaSuccess;
        }
    }
    return fail(cudaErrorInvalidDevice, "cudaDeviceGetByPCIBusId: no device at that bus id");
}

// Cache and shared-memory bank configuration: preferences a GPU may ignore, and this one does.
cudaError_t cudaDeviceSetCacheConfig(int /*config*/) { return cudaSuccess; }
cudaError_t cudaDeviceGetCacheConfig(int* config) {
    if (!config) return record(cudaErrorInvalidValue);
    *config = 0;  // cudaFuncCachePreferNone
    return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(int /*config*/) { return cudaSuccess; }
cudaError_t cudaDeviceGetSharedMemConfig(int* config) {
    if (!config) return record(cudaErrorInvalidValue);
    *config = 1;  // cudaSharedMemBankSizeFourByte
    return cudaSuccess;
}

cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t* width, const void* /*desc*/, int /*device*/) {
    if (!width) return record(cudaErrorInvalidValue);
    *width = size_t{1} << 27;
    return cudaSuccess;
}

// CUDA's limits (enum cudaLimit): the stack, the printf FIFO, the device heap, the device
// runtime's sync depth and pending launches, the L2 fetch granularity and the persisting L2 size.
// The stack and the heap go to the device (cbDeviceSetLimit), which every launch tells how much
// stack and heap its kernels may use; the others are kept and read back, CUDA's default before
// any is set; the persisting L2 size is bounded by the device's (a no-op here).
namespace {
std::mutex limits_mutex;
size_t limit_values[] = {1024, 1u << 20, 8u << 20, 2, 2048, 64, 0};
}  // namespace

cudaError_t cudaDeviceSetLimit(int limit, size_t value) {
    if (limit < 0 || limit >= static_cast<int>(std::size(limit_values))) return record(cudaErrorUnsupportedLimit);
    if (limit == 6) {  // cudaLimitPersistingL2CacheSize
        int device = 0, most = 0;
        if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
        if (cudaError_t e = cudaDeviceGetAttribute(&most, 108, device); e != cudaSuccess) return e;
        value = std::min<size_t>(value, static_cast<size_t>(most));
    }
    // The stack and the device heap reach the kernels: every later launch carries them.
    if (limit == 0 || limit == 2) {
        if (cbError_t e = cbDeviceSetLimit(static_cast<cbLimit>(limit), value); e != cbSuccess) return record(e);
        if (cbError_t e = cbDeviceGetLimit(&value, static_cast<cbLimit>(limit)); e != cbSuccess) return record(e);
    }
    std::lock_guard lock(limits_mutex);
    limit_values[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t* value, int limit) {
    if (!value) return record(cudaErrorInvalidValue);
    if (limit < 0 || limit >= static_cast<int>(std::size(limit_values))) return record(cudaErrorUnsupportedLimit);
    std::lock_guard lock(limits_mutex);
    *value = limit_values[limit];
    return cudaSuccess;
}

}  // extern "C"

// Devices: count, choice, properties and attributes, synchronization, reset, versions.
#include "device_limits.hpp"
#include "errors.hpp"
#include "host_functions.hpp"
#include "managed_variables.hpp"
#include "per_thread_stream.hpp"
#include "registration.hpp"
#include "run_summary.hpp"
#include "versioned_api.hpp"

using namespace cudabridge::cudart;

namespace {

// CUDA's cudaDeviceAttr values this library answers (CUDA Runtime API, enum cudaDeviceAttr).
enum : int {
    attr_max_threads_per_block = 1,
    attr_max_block_dim_x = 2,
    attr_max_block_dim_y = 3,
    attr_max_block_dim_z = 4,
    attr_max_grid_dim_x = 5,
    attr_max_grid_dim_y = 6,
    attr_max_grid_dim_z = 7,
    attr_max_shared_memory_per_block = 8,
    attr_total_constant_memory = 9,
    attr_warp_size = 10,
    attr_max_pitch = 11,
    attr_max_registers_per_block = 12,
    attr_clock_rate = 13,
    attr_multiprocessor_count = 16,
    attr_integrated = 18,
    attr_can_map_host_memory = 19,
    attr_concurrent_kernels = 31,
    attr_pci_bus_id = 33,
    attr_pci_device_id = 34,
    attr_memory_clock_rate = 36,
    attr_global_memory_bus_width = 37,
    attr_l2_cache_size = 38,
    attr_max_threads_per_multiprocessor = 39,
    attr_async_engine_count = 40,
    attr_unified_addressing = 41,
    attr_pci_domain_id = 50,
    attr_compute_capability_major = 75,
    attr_compute_capability_minor = 76,
    attr_max_shared_memory_per_multiprocessor = 81,
    attr_max_registers_per_multiprocessor = 82,
    attr_managed_memory = 83,
    attr_pageable_memory_access = 88,
    attr_concurrent_managed_access = 89,
    attr_can_use_host_pointer_for_registered_mem = 91,
    attr_max_shared_memory_per_block_optin = 97,
    attr_host_register_supported = 99,
    attr_max_blocks_per_multiprocessor = 106,
};

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

bool attribute_of(const cbDeviceProp& p, const cudaDeviceProp& c, int attribute, int& value) {
    switch (attribute) {
    case attr_max_threads_per_block:
        value = c.maxThreadsPerBlock;
        return true;
    case attr_max_block_dim_x:
        value = c.maxThreadsDim[0];
        return true;
    case attr_max_block_dim_y:
        value = c.maxThreadsDim[1];
        return true;
    case attr_max_block_dim_z:
        value = c.maxThreadsDim[2];
        return true;
    case attr_max_grid_dim_x:
        value = c.maxGridSize[0];
        return true;
    case attr_max_grid_dim_y:
        value = c.maxGridSize[1];
        return true;
    case attr_max_grid_dim_z:
        value = c.maxGridSize[2];
        return true;
    case attr_max_shared_memory_per_block:
        value = static_cast<int>(c.sharedMemPerBlock);
        return true;
    case attr_total_constant_memory:
        value = static_cast<int>(c.totalConstMem);
        return true;
    case attr_warp_size:
        value = c.warpSize;
        return true;
    case attr_max_pitch:
        value = static_cast<int>(c.memPitch);
        return true;
    case attr_max_registers_per_block:
        value = c.regsPerBlock;
        return true;
    case attr_clock_rate:
        value = p.clockRate;
        return true;
    case attr_multiprocessor_count:
        value = c.multiProcessorCount;
        return true;
    case attr_integrated:
        value = 0;
        return true;
    case attr_can_map_host_memory:
        value = c.canMapHostMemory;
        return true;
    case attr_concurrent_kernels:
        value = c.concurrentKernels;
        return true;
    case attr_pci_bus_id:
        value = c.pciBusID;
        return true;
    case attr_pci_device_id:
        value = c.pciDeviceID;
        return true;
    case attr_memory_clock_rate:
        value = p.memoryClockRate;
        return true;
    case attr_global_memory_bus_width:
        value = c.memoryBusWidth;
        return true;
    case attr_l2_cache_size:
        value = c.l2CacheSize;
        return true;
    case attr_max_threads_per_multiprocessor:
        value = c.maxThreadsPerMultiProcessor;
        return true;
    case attr_async_engine_count:
        value = c.asyncEngineCount;
        return true;
    case attr_unified_addressing:
        value = c.unifiedAddressing;
        return true;
    case attr_pci_domain_id:
        value = c.pciDomainID;
        return true;
    case attr_compute_capability_major:
        value = c.major;
        return true;
    case attr_compute_capability_minor:
        value = c.minor;
        return true;
    case attr_max_shared_memory_per_multiprocessor:
        value = static_cast<int>(c.sharedMemPerMultiprocessor);
        return true;
    case attr_max_registers_per_multiprocessor:
        value = c.regsPerMultiprocessor;
        return true;
    case attr_managed_memory:
        value = c.managedMemory;
        return true;
    case attr_pageable_memory_access:
        value = c.pageableMemoryAccess;
        return true;
    case attr_concurrent_managed_access:
        value = c.concurrentManagedAccess;
        return true;
    case attr_can_use_host_pointer_for_registered_mem:
        value = c.canUseHostPointerForRegisteredMem;
        return true;
    case attr_max_shared_memory_per_block_optin:
        value = static_cast<int>(c.sharedMemPerBlockOptin);
        return true;
    case attr_host_register_supported:
        value = c.hostRegisterSupported;
        return true;
    case attr_max_blocks_per_multiprocessor:
        value = c.maxBlocksPerMultiProcessor;
        return true;
    default:
        return false;
    }
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
    if (!attribute_of(p, c, attribute, *value)) return record(cudaErrorInvalidValue);
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

cudaError_t cudaSetDeviceFlags(unsigned /*flags*/) { return cudaSuccess; }

// The stack, printf FIFO and device heap of CUDA's limits (cudaLimitStackSize = 0,
// cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2): the simulator sizes them itself, so a
// request is accepted and CUDA's defaults are reported.
cudaError_t cudaDeviceSetLimit(int limit, size_t /*value*/) {
    return limit >= 0 && limit <= 2 ? cudaSuccess : not_supported("cudaDeviceSetLimit (that limit)");
}

cudaError_t cudaDeviceGetLimit(size_t* value, int limit) {
    if (!value) return record(cudaErrorInvalidValue);
    constexpr size_t defaults[] = {1024, 1u << 20, 8u << 20};
    if (limit < 0 || limit > 2) return not_supported("cudaDeviceGetLimit (that limit)");
    *value = defaults[limit];
    return cudaSuccess;
}

}  // extern "C"

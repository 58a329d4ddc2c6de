// cudabridge.h: each function finds the process's runtime and hands over to it.
#include <cudabridge.h>

#include "c_api/runtime_registry.hpp"
#include "runtime/errors.hpp"

using namespace cudabridge::host;

namespace {

// Runs f on the process's runtime (made on first use); no exception leaves a C function.
template <typename F>
cbError_t guarded(F&& f) noexcept {
    try {
        runtime* rt = c_api::get_runtime();
        if (!rt) return peek_last_error() != cbSuccess ? peek_last_error() : cbErrorInitializationError;
        return f(*rt);
    } catch (const std::bad_alloc&) {
        return set_last_error(cbErrorMemoryAllocation, "out of host memory");
    } catch (const std::exception& e) {
        return set_last_error(cbErrorUnknown, e.what());
    } catch (...) {
        return set_last_error(cbErrorUnknown, "unexpected failure");
    }
}

}  // namespace

extern "C" {

cbError_t cbInit(void) {
    return guarded([](runtime& rt) {
        return rt.device_count() ? cbSuccess : set_last_error(cbErrorNoDevice, "cbInit: " + rt.startup_error());
    });
}

cbError_t cbShutdown(void) {
    auto& r = c_api::registry();
    std::unique_ptr<runtime> gone;
    {
        std::lock_guard lock(r.mutex);
        r.current.store(nullptr);
        gone = std::move(r.owned);
    }
    try {
        gone.reset();  // synchronizes, frees, detaches
    } catch (const std::exception& e) {
        return set_last_error(cbErrorUnknown, std::string("cbShutdown: ") + e.what());
    }
    return cbSuccess;
}

cbError_t cbRuntimeGetVersion(int* version) {
    if (!version) return set_last_error(cbErrorInvalidValue, "cbRuntimeGetVersion: NULL argument");
    *version = 1000 * CB_ABI_MAJOR + 10 * CB_ABI_MINOR;
    return cbSuccess;
}

cbError_t cbGetDeviceCount(int* count) {
    if (!count) return set_last_error(cbErrorInvalidValue, "cbGetDeviceCount: NULL argument");
    *count = 0;
    return guarded([&](runtime& rt) {
        *count = rt.device_count();
        return *count ? cbSuccess : set_last_error(cbErrorNoDevice, "cbGetDeviceCount: " + rt.startup_error());
    });
}

cbError_t cbSetDevice(int device) {
    return guarded([&](runtime& rt) { return rt.set_device(device); });
}
cbError_t cbGetDevice(int* device) {
    return guarded([&](runtime& rt) { return rt.get_device(device); });
}
cbError_t cbGetDeviceProperties(cbDeviceProp* prop, int device) {
    return guarded([&](runtime& rt) { return rt.get_properties(prop, device); });
}
cbError_t cbDeviceSynchronize(void) {
    return guarded([&](runtime& rt) { return rt.synchronize(); });
}
cbError_t cbDeviceSetLimit(cbLimit limit, size_t value) {
    return guarded([&](runtime& rt) { return rt.set_limit(limit, value); });
}
cbError_t cbDeviceGetLimit(size_t* value, cbLimit limit) {
    return guarded([&](runtime& rt) { return rt.get_limit(value, limit); });
}
cbError_t cbDeviceReset(void) {
    return guarded([&](runtime& rt) { return rt.reset_device(); });
}
cbError_t cbMalloc(void** ptr, size_t size) {
    return guarded([&](runtime& rt) { return rt.malloc(ptr, size); });
}
cbError_t cbFree(void* ptr) {
    return guarded([&](runtime& rt) { return rt.free(ptr); });
}
cbError_t cbMallocHost(void** ptr, size_t size) {
    return guarded([&](runtime& rt) { return rt.malloc_host(ptr, size); });
}
cbError_t cbFreeHost(void* ptr) {
    return guarded([&](runtime& rt) { return rt.free_host(ptr); });
}
cbError_t cbMallocManaged(void** ptr, size_t size, unsigned int flags) {
    return guarded([&](runtime& rt) { return rt.malloc_managed(ptr, size, flags); });
}
cbError_t cbHostGetDevicePointer(void** devPtr, void* host, unsigned int flags) {
    return guarded([&](runtime& rt) { return rt.host_device_pointer(devPtr, host, flags); });
}
cbError_t cbDeviceGetAttribute(int* value, cbDeviceAttr attr, int device) {
    return guarded([&](runtime& rt) { return rt.device_attribute(value, attr, device); });
}
cbError_t cbHostRegister(void* ptr, size_t size, unsigned int flags) {
    return guarded([&](runtime& rt) { return rt.host_register(ptr, size, flags); });
}
cbError_t cbHostUnregister(void* ptr) {
    return guarded([&](runtime& rt) { return rt.host_unregister(ptr); });
}
cbError_t cbMemcpy(void* dst, const void* src, size_t count, cbMemcpyKind kind) {
    return guarded([&](runtime& rt) { return rt.memcpy(dst, src, count, kind, nullptr, false); });
}
cbError_t cbMemcpyAsync(void* dst, const void* src, size_t count, cbMemcpyKind kind, cbStream_t stream) {
    return guarded([&](runtime& rt) { return rt.memcpy(dst, src, count, kind, stream, true); });
}
cbError_t cbMemset(void* ptr, int value, size_t count) {
    return guarded([&](runtime& rt) { return rt.memset(ptr, value, count, nullptr, false); });
}
cbError_t cbMemsetAsync(void* ptr, int value, size_t count, cbStream_t stream) {
    return guarded([&](runtime& rt) { return rt.memset(ptr, value, count, stream, true); });
}
cbError_t cbMemGetInfo(size_t* free, size_t* total) {
    return guarded([&](runtime& rt) { return rt.mem_get_info(free, total); });
}
cbError_t cbMemGetHostPointer(void** host, const void* device, size_t size) {
    return guarded([&](runtime& rt) { return rt.mem_host_pointer(host, device, size); });
}
cbError_t cbDeviceGetKernelTime(unsigned long long* ns) {
    return guarded([&](runtime& rt) { return rt.kernel_time(ns); });
}
cbError_t cbStreamCreate(cbStream_t* stream) {
    return guarded([&](runtime& rt) { return rt.stream_create(stream, cbStreamDefault); });
}
cbError_t cbStreamCreateWithFlags(cbStream_t* stream, unsigned int flags) {
    return guarded([&](runtime& rt) { return rt.stream_create(stream, flags); });
}
cbError_t cbStreamDestroy(cbStream_t stream) {
    return guarded([&](runtime& rt) { return rt.stream_destroy(stream); });
}
cbError_t cbStreamSynchronize(cbStream_t stream) {
    return guarded([&](runtime& rt) { return rt.stream_synchronize(stream); });
}
cbError_t cbStreamQuery(cbStream_t stream) {
    return guarded([&](runtime& rt) { return rt.stream_query(stream); });
}
cbError_t cbStreamWaitEvent(cbStream_t stream, cbEvent_t event, unsigned int flags) {
    if (flags != 0) return set_last_error(cbErrorInvalidValue, "cbStreamWaitEvent: flags must be 0");
    return guarded([&](runtime& rt) { return rt.stream_wait_event(stream, event); });
}
cbError_t cbEventCreate(cbEvent_t* event) {
    return guarded([&](runtime& rt) { return rt.event_create(event); });
}
cbError_t cbEventDestroy(cbEvent_t event) {
    return guarded([&](runtime& rt) { return rt.event_destroy(event); });
}
cbError_t cbEventRecord(cbEvent_t event, cbStream_t stream) {
    return guarded([&](runtime& rt) { return rt.event_record(event, stream); });
}
cbError_t cbEventSynchronize(cbEvent_t event) {
    return guarded([&](runtime& rt) { return rt.event_synchronize(event); });
}
cbError_t cbEventQuery(cbEvent_t event) {
    return guarded([&](runtime& rt) { return rt.event_query(event); });
}
cbError_t cbEventElapsedTime(float* ms, cbEvent_t start, cbEvent_t end) {
    return guarded([&](runtime& rt) { return rt.event_elapsed(ms, start, end); });
}
cbError_t cbEventCreateWithFlags(cbEvent_t* event, unsigned int flags) {
    constexpr unsigned known = cbEventBlockingSync | cbEventDisableTiming | cbEventInterprocess;
    if (flags & ~known) return set_last_error(cbErrorInvalidValue, "cbEventCreateWithFlags: unknown flags");
    if ((flags & cbEventInterprocess) && !(flags & cbEventDisableTiming))
        return set_last_error(cbErrorInvalidValue,
                              "cbEventCreateWithFlags: an interprocess event must also disable timing");
    return guarded([&](runtime& rt) { return rt.event_create(event, flags); });
}
cbError_t cbIpcGetMemHandle(cbIpcMemHandle_t* handle, void* devPtr) {
    return guarded([&](runtime& rt) { return rt.ipc_get_mem_handle(handle, devPtr); });
}
cbError_t cbIpcOpenMemHandle(void** devPtr, cbIpcMemHandle_t handle, unsigned int flags) {
    if (flags > 1) return set_last_error(cbErrorInvalidValue, "cbIpcOpenMemHandle: unknown flags");
    return guarded([&](runtime& rt) { return rt.ipc_open_mem_handle(devPtr, handle, flags); });
}
cbError_t cbIpcCloseMemHandle(void* devPtr) {
    return guarded([&](runtime& rt) { return rt.ipc_close_mem_handle(devPtr); });
}
cbError_t cbIpcGetEventHandle(cbIpcEventHandle_t* handle, cbEvent_t event) {
    return guarded([&](runtime& rt) { return rt.ipc_get_event_handle(handle, event); });
}
cbError_t cbIpcOpenEventHandle(cbEvent_t* event, cbIpcEventHandle_t handle) {
    return guarded([&](runtime& rt) { return rt.ipc_open_event_handle(event, handle); });
}
cbError_t cbLaunchBuiltin(const char* name, cb_dtype dtype, const cbKernelArg* args, size_t numArgs,
                          cbStream_t stream) {
    return guarded([&](runtime& rt) { return rt.launch_builtin(name, dtype, args, numArgs, stream); });
}
cbError_t cbModuleLoadData(cbModule_t* module, const void* image, size_t size, cb_module_format format) {
    return guarded([&](runtime& rt) { return rt.module_load(module, image, size, format); });
}
cbError_t cbModuleUnload(cbModule_t module) {
    return guarded([&](runtime& rt) { return rt.module_unload(module); });
}
cbError_t cbModuleGetGlobal(void** devPtr, size_t* bytes, cbModule_t module, const char* name) {
    return guarded([&](runtime& rt) { return rt.module_global(module, name, devPtr, bytes); });
}
cbError_t cbModuleGetParamInfo(cbModule_t module, const char* name, size_t index, size_t* offset, size_t* size) {
    return guarded([&](runtime& rt) { return rt.kernel_param_info(module, name, index, offset, size); });
}
cbError_t cbModuleLaunchKernel(cbModule_t module, const char* name, cbDim3 grid, cbDim3 block, const cbKernelArg* args,
                               size_t numArgs, size_t sharedMem, cbStream_t stream) {
    if (!module) return set_last_error(cbErrorInvalidResourceHandle, "cbModuleLaunchKernel: NULL module");
    return guarded(
        [&](runtime& rt) { return rt.launch_kernel(module, name, grid, block, args, numArgs, sharedMem, stream); });
}
cbError_t cbModuleLaunchKernelParams(cbModule_t module, const char* name, cbDim3 grid, cbDim3 block,
                                     void** kernelParams, size_t sharedMem, cbStream_t stream) {
    return guarded([&](runtime& rt) {
        return rt.launch_kernel_params(module, name, grid, block, kernelParams, sharedMem, stream);
    });
}
cbError_t cbModuleLaunchCooperativeKernel(cbModule_t module, const char* name, cbDim3 grid, cbDim3 block,
                                          void** kernelParams, size_t sharedMem, cbStream_t stream) {
    return guarded([&](runtime& rt) {
        return rt.launch_kernel_params(module, name, grid, block, kernelParams, sharedMem, stream,
                                       CB_LAUNCH_COOPERATIVE);
    });
}
cbError_t cbLaunchKernel(const char* name, cbDim3 grid, cbDim3 block, const cbKernelArg* args, size_t numArgs,
                         size_t sharedMem, cbStream_t stream) {
    return guarded(
        [&](runtime& rt) { return rt.launch_kernel(nullptr, name, grid, block, args, numArgs, sharedMem, stream); });
}

cbError_t cbGetLastError(void) { return take_last_error(); }
cbError_t cbPeekAtLastError(void) { return peek_last_error(); }
const char* cbGetErrorName(cbError_t error) { return error_name(error); }
const char* cbGetErrorString(cbError_t error) { return error_string(error); }
const char* cbGetLastErrorMessage(void) { return last_error_message(); }

}  // extern "C"

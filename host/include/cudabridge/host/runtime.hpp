// The runtime behind cudabridge.h, for C++: the same objects and the same semantics (streams,
// the legacy default stream, events, the caching allocator, pinned memory, kernels, sticky
// errors), with cbError_t results. `check()` turns a result into an exception for code that
// prefers them.
//
// A runtime owns a session and the devices it connected or attached to. The C API uses one per
// process (made on first use); C++ code may make its own. Each thread has a current device per
// runtime (cbSetDevice), 0 by default.
#pragma once

#include <cudabridge.h>
#include <cudabridge/host/device.hpp>
#include <cudabridge/host/session.hpp>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudabridge::host {

struct runtime_options {
    session_options session;
    // With no device connected, connect the first usable one (as `cudabridge-cli connect`
    // would); off: only attach to connected devices. Environment: CUDABRIDGE_AUTOCONNECT=0.
    bool autoconnect = true;
    std::string device;  // which eGPU to connect ("" = auto)
    bool enroll = false;
    bool reset_unanswering = false;  // connect_options::reset_unanswering for the attaches
    bool observe = false;            // connect_options::observe for the attaches: join, record nothing
    // Use only the connected eGPUs CUDABRIDGE_VISIBLE_DEVICES names, in its order (when the
    // session reads the environment). Off for the CLI, which shows every eGPU as nvidia-smi does.
    bool visible_devices = true;
};

class runtime_error : public std::runtime_error {
public:
    runtime_error(cbError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
    cbError_t code() const noexcept { return code_; }

private:
    cbError_t code_;
};

// Throws runtime_error with the thread's last error message unless `e` is cbSuccess.
void check(cbError_t e);

class device_context;

class runtime {
public:
    // Opens the session (throws core::error when that fails) and attaches / connects. A runtime
    // that found no device is valid: cbGetDeviceCount answers 0 and startup_error() says why.
    explicit runtime(runtime_options options = {});
    ~runtime();  // synchronizes, frees, detaches (the connection stays for other processes)
    runtime(const runtime&) = delete;
    runtime& operator=(const runtime&) = delete;

    session& current_session() noexcept { return *session_; }
    // Devices not disconnected.
    int device_count() const noexcept;
    static constexpr size_t max_devices = 16;
    device_context& context(int ordinal);
    host::device& device(int ordinal);

    // Why the runtime started without a device ("" when it has one or was not asked to connect).
    const std::string& startup_error() const noexcept { return startup_error_; }
    // Adds a device connected later (egpu_connect).
    int adopt(std::unique_ptr<host::device> d);
    // Safe disconnect of every device; afterwards device_count() is 0.
    std::vector<disconnect_report> disconnect_all(const disconnect_options& options);

    // ---- the API, on the calling thread's current device -------------------------------------
    cbError_t set_device(int ordinal);
    cbError_t get_device(int* ordinal);
    cbError_t get_properties(cbDeviceProp* prop, int ordinal);
    cbError_t synchronize();
    cbError_t reset_device();
    cbError_t set_limit(cbLimit limit, size_t value);
    cbError_t get_limit(size_t* value, cbLimit limit);
    cbError_t malloc(void** ptr, size_t size);
    cbError_t free(void* ptr);
    cbError_t malloc_host(void** ptr, size_t size);
    cbError_t free_host(void* ptr);
    cbError_t host_register(void* ptr, size_t size, unsigned flags);
    cbError_t host_unregister(void* ptr);
    cbError_t host_device_pointer(void** out, void* host, unsigned flags);
    cbError_t malloc_managed(void** ptr, size_t size, unsigned flags);
    cbError_t device_attribute(int* value, cbDeviceAttr attr, int ordinal);
    cbError_t memcpy(void* dst, const void* src, size_t count, cbMemcpyKind kind, cbStream_t stream, bool async);
    cbError_t memset(void* ptr, int value, size_t count, cbStream_t stream, bool async);
    cbError_t mem_get_info(size_t* free, size_t* total);
    cbError_t kernel_time(unsigned long long* ns);
    cbError_t mem_host_pointer(void** host, const void* device, size_t size);
    cbError_t stream_create(cbStream_t* stream, unsigned flags);
    cbError_t stream_destroy(cbStream_t stream);
    cbError_t stream_synchronize(cbStream_t stream);
    cbError_t stream_query(cbStream_t stream);
    cbError_t stream_wait_event(cbStream_t stream, cbEvent_t event);
    cbError_t event_create(cbEvent_t* event, unsigned flags = 0);
    cbError_t ipc_get_mem_handle(cbIpcMemHandle_t* handle, void* ptr);
    cbError_t ipc_open_mem_handle(void** ptr, const cbIpcMemHandle_t& handle, unsigned flags);
    cbError_t ipc_close_mem_handle(void* ptr);
    cbError_t ipc_get_event_handle(cbIpcEventHandle_t* handle, cbEvent_t event);
    cbError_t ipc_open_event_handle(cbEvent_t* event, const cbIpcEventHandle_t& handle);
    cbError_t event_destroy(cbEvent_t event);
    cbError_t event_record(cbEvent_t event, cbStream_t stream);
    cbError_t event_synchronize(cbEvent_t event);
    cbError_t event_query(cbEvent_t event);
    cbError_t event_elapsed(float* ms, cbEvent_t start, cbEvent_t end);
    cbError_t launch_builtin(const char* name, cb_dtype dtype, const cbKernelArg* args, size_t count,
                             cbStream_t stream);
    cbError_t module_load(cbModule_t* module, const void* image, size_t size, cb_module_format format);
    cbError_t module_unload(cbModule_t module);
    cbError_t module_global(cbModule_t module, const char* name, void** address, size_t* bytes);
    cbError_t kernel_param_info(cbModule_t module, const char* name, size_t index, size_t* offset, size_t* size);
    cbError_t launch_kernel(cbModule_t module, const char* name, cbDim3 grid, cbDim3 block, const cbKernelArg* args,
                            size_t count, size_t shared_memory, cbStream_t stream);
    // The same, with the arguments as cuLaunchKernel's kernelParams (the GPU family lays them out).
    // `flags`: CB_LAUNCH_* (a cooperative launch).
    cbError_t launch_kernel_params(cbModule_t module, const char* name, cbDim3 grid, cbDim3 block,
                                   void* const* kernel_params, size_t shared_memory, cbStream_t stream,
                                   uint32_t flags = 0);

    // ---- fault injection for tests -------------------------------------------------------------
    // Flip one bit of the data the next host-to-device copy on the current device delivers,
    // after the link and before the end-to-end check: proves the check catches what the link's
    // CRC cannot see (a fault beyond the link).
    void inject_copy_corruption();

private:
    cbError_t with_device(int ordinal, device_context*& out);
    runtime_options options_;
    std::unique_ptr<session> session_;
    std::string startup_error_;
    // Fixed slots, published by count_: calls on other threads read them without a lock.
    std::array<std::unique_ptr<device_context>, max_devices> contexts_;
    std::atomic<size_t> count_{0};
    // cbMallocHost's live allocations, so cbFreeHost refuses every other pointer.
    std::mutex host_allocations_mutex_;
    std::set<void*> host_allocations_;
};

}  // namespace cudabridge::host

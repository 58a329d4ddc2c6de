// What the family's table needs from one open device, whichever backend drives it: the userspace
// driver over a transport link (a simulated or a real eGPU) or NVIDIA's kernel driver. Streams,
// events and modules are the backend's own opaque handles. Failures throw sdk::status_error with
// the status and a message (the SDK firewall turns it into the return code and last error).
#pragma once

#include <cudabridge/gpu.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::nv {

class device_backend {
public:
    virtual ~device_backend() = default;

    virtual void properties(cb_gpu_properties& out) = 0;
    virtual uint64_t mem_alloc(uint64_t size) = 0;
    virtual void mem_free(uint64_t ptr) = 0;
    virtual void mem_info(uint64_t& free, uint64_t& total) = 0;

    virtual void memcpy_h2d(uint64_t dst, const void* src, size_t size, void* stream) = 0;
    virtual void memcpy_d2h(void* dst, uint64_t src, size_t size, void* stream) = 0;
    virtual void memcpy_d2d(uint64_t dst, uint64_t src, size_t size, void* stream) = 0;
    virtual void memset8(uint64_t dst, uint8_t value, size_t size, void* stream) = 0;
    // ABI 1.3: pinned host memory.
    virtual void host_register(void* ptr, size_t size) = 0;
    virtual void host_unregister(void* ptr) = 0;
    // ABI 1.9: memory host code and kernels reach at one address (mem_free releases it), and
    // where kernels reach registered host memory (CB_ERR_NOT_FOUND: not registered).
    virtual uint64_t mem_alloc_managed(uint64_t size) = 0;
    virtual uint64_t host_device_address(const void* ptr) = 0;
    // Nanoseconds the GPU spent in this process's completed kernels (cb_gpu_table.kernel_time).
    virtual uint64_t kernel_time_ns() = 0;
    // A counter that moves whenever the device moves this process's work forward
    // (cb_gpu_table.progress).
    virtual uint64_t progress() = 0;
    // How long the kernel now running has run, ms (cb_gpu_table.kernel_running).
    virtual uint64_t kernel_running_ms() = 0;
    // The host address of a device range through BAR1 (cb_gpu_table.mem_host_address).
    virtual void* mem_host_address(uint64_t ptr, uint64_t size) = 0;
    // ABI 1.17: device memory shared with other processes (cb_gpu_table.mem_share, mem_open_shared).
    virtual void mem_share(uint64_t ptr, void* handle) = 0;
    virtual uint64_t mem_open_shared(const void* handle, uint64_t& bytes) = 0;

    virtual void* stream_create() = 0;
    virtual void stream_destroy(void* stream) = 0;
    virtual void stream_synchronize(void* stream) = 0;
    virtual bool stream_done(void* stream) = 0;  // false while work is pending
    virtual void* event_create() = 0;
    virtual void event_destroy(void* event) = 0;
    virtual void event_record(void* event, void* stream) = 0;
    virtual void event_synchronize(void* event) = 0;
    virtual bool event_done(void* event) = 0;
    virtual float event_elapsed_ms(void* start, void* end) = 0;
    virtual void synchronize() = 0;
    // ABI 1.3: work queued on `stream` (nullptr: the default stream) after this waits for `event`.
    virtual void stream_wait_event(void* stream, void* event) = 0;

    virtual void launch_builtin(const cb_kernel_launch& launch, void* stream) = 0;
    // Returns a module handle; compiler output goes to `log` on failure (and success, if any).
    // CB_MODULE_HOST_KERNELS: the userspace driver on a simulated GPU only.
    virtual void* module_load(const void* image, size_t size, cb_module_format format, std::string& log) = 0;
    virtual void module_unload(void* module) = 0;
    // ABI 1.8: a module variable's device address and size (CB_ERR_NOT_FOUND: no such name).
    virtual void module_global(void* module, const char* name, uint64_t& address, uint64_t& bytes) = 0;
    // ABI 1.14: where a kernel's parameter lies in its buffer, and its size.
    virtual void kernel_param_info(void* module, const char* name, uint32_t index, uint64_t& offset,
                                   uint64_t& size) = 0;
    virtual void launch_kernel(void* module, const cb_kernel_launch& launch, void* stream) = 0;

    virtual void telemetry(cb_gpu_telemetry& out) = 0;
    virtual void settings(cb_gpu_settings& out) = 0;
    virtual void setting_limits(cb_gpu_setting_limits& out) = 0;
    virtual void apply_settings(const cb_gpu_settings& settings) = 0;
    virtual void reset(cb_reset_kind kind) = 0;
    virtual uint64_t heartbeat() = 0;
    // ABI 1.9: the processes attached to the device, this one included.
    virtual std::vector<cb_gpu_process> processes() = 0;
};

}  // namespace cudabridge::nv

// The kernel-driver backend: real NVIDIA GPUs on Linux through NVIDIA's own driver. The CUDA
// driver API and NVML are loaded at run time (cuda_driver/), cuBLAS and NVRTC lazily on first
// use; the built-in kernels come from the fatbin embedded at build time (cuda_kernels/).
//
// Per CUDA device ordinal: open (the device's primary context, made current on the calling
// thread by every call), properties, memory, copies, streams, events, built-in kernels, user
// modules, NVML telemetry and settings, heartbeat. Every call returns a cb_status and, when it
// is not CB_OK, leaves the message for the caller to show in `error`. When the driver is not usable (absent,
// the toolkit's stub library, no device) construction still succeeds, device_count() is 0 and
// every call answers CB_ERR_NO_DEVICE with the reason. Handles are checked: a closed or foreign
// handle is CB_ERR_INVALID_ARGUMENT, never a crash. All calls may come from any thread; close a
// device only once no other call on it is in flight.
#pragma once

#include <cudabridge/builtin_kernels.h>
#include <cudabridge/gpu.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nvidia_driver/cuda_driver/cublas_library.hpp"
#include "nvidia_driver/cuda_driver/cuda_driver.hpp"
#include "nvidia_driver/cuda_driver/nvml_library.hpp"
#include "nvidia_driver/cuda_driver/nvrtc_library.hpp"
#include "nvidia_driver/kernel_driver/telemetry_details.hpp"
#include "common/errors/fail.hpp"

namespace cudabridge::nv {

// Opaque handles, owned by the backend (defined in kernel_driver/handles.hpp).
struct kd_device;
struct kd_stream;
struct kd_event;
struct kd_module;

struct kernel_driver_options {
    std::string cuda_library = cuda_driver::default_library;
    std::string nvml_library = nvml_library::default_library;
    // Tried in order on first use; the toolkit's library folder found at build time is appended
    // to the defaults.
    std::vector<std::string> cublas_libraries = default_cublas_libraries();
    std::vector<std::string> nvrtc_libraries = default_nvrtc_libraries();

    static std::vector<std::string> default_cublas_libraries();
    static std::vector<std::string> default_nvrtc_libraries();
};

class kernel_driver_backend {
public:
    explicit kernel_driver_backend(kernel_driver_options options = {});
    ~kernel_driver_backend();  // closes what is still open: modules, streams, events, contexts
    kernel_driver_backend(const kernel_driver_backend&) = delete;
    kernel_driver_backend& operator=(const kernel_driver_backend&) = delete;

    // ---- availability ----
    [[nodiscard]] bool available() const { return driver_.available(); }
    [[nodiscard]] const availability& availability_status() const { return driver_.status(); }
    [[nodiscard]] const cuda_driver& driver() const { return driver_; }
    [[nodiscard]] const nvml_library& nvml() const { return nvml_; }
    // Loaded on first call (thread safe); check available() on the result.
    [[nodiscard]] const cublas_library& cublas() const;
    [[nodiscard]] const nvrtc_library& nvrtc() const;
    // True when the built-in kernels' fatbin was embedded (the build found the CUDA toolkit).
    [[nodiscard]] static bool has_builtin_kernels();

    // ---- devices ----
    [[nodiscard]] uint32_t device_count() const;
    cb_status open(int ordinal, kd_device*& out, std::string& error);
    cb_status close(kd_device* device, std::string& error);
    cb_status properties(kd_device* device, cb_gpu_properties& out, std::string& error) const;
    // Makes the device's context current on this thread (for code that calls the driver itself,
    // like the benchmarks), and gives the raw handles.
    cb_status make_current(kd_device* device, std::string& error) const;
    [[nodiscard]] cu::CUcontext raw_context(kd_device* device) const;
    [[nodiscard]] cu::CUstream raw_stream(kd_stream* stream) const;

    // ---- memory and copies (stream nullptr: synchronous, on the device's default stream) ----
    cb_status mem_alloc(kd_device* device, uint64_t size, uint64_t& out_ptr, std::string& error);  // size 0 gives 0
    cb_status mem_free(kd_device* device, uint64_t ptr, std::string& error);                       // 0 is a no-op
    cb_status mem_info(kd_device* device, uint64_t& out_free, uint64_t& out_total, std::string& error);
    cb_status memcpy_h2d(kd_device* device, uint64_t dst, const void* src, size_t size, kd_stream* stream,
                         std::string& error);
    cb_status memcpy_d2h(kd_device* device, void* dst, uint64_t src, size_t size, kd_stream* stream,
                         std::string& error);
    cb_status memcpy_d2d(kd_device* device, uint64_t dst, uint64_t src, size_t size, kd_stream* stream,
                         std::string& error);
    cb_status memset8(kd_device* device, uint64_t dst, uint8_t value, size_t size, kd_stream* stream,
                      std::string& error);

    // ---- pinned host memory (ABI 1.3) ----
    // cuMemHostRegister_v2 with CU_MEMHOSTREGISTER_PORTABLE (every context of the process sees
    // the memory pinned); copies from or to it on a stream are then truly asynchronous
    // (cuMemcpyHtoDAsync_v2 / DtoHAsync_v2, as any copy on a stream). Overlapping a registration
    // is CB_ERR_INVALID_ARGUMENT (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED).
    cb_status host_register(kd_device* device, void* ptr, size_t size, std::string& error);
    // Waits for the device's queued work (cuCtxSynchronize: cuMemHostUnregister itself does not
    // wait for copies in flight), then cuMemHostUnregister. An unknown pointer is
    // CB_ERR_INVALID_ARGUMENT (CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED).
    cb_status host_unregister(kd_device* device, void* ptr, std::string& error);
    // cuMemAllocManaged (attached globally): one address for host code and kernels; mem_free
    // (cuMemFree) releases it. CB_ERR_UNSUPPORTED when the driver does not export it.
    cb_status mem_alloc_managed(kd_device* device, uint64_t size, uint64_t& out_ptr, std::string& error);
    // cuMemHostGetDevicePointer_v2: where kernels reach registered host memory (host_register
    // maps it into the device's address space). CB_ERR_NOT_FOUND when `ptr` is not registered.
    cb_status host_device_address(kd_device* device, const void* ptr, uint64_t& out, std::string& error);

    // ---- streams and events ----
    cb_status stream_create(kd_device* device, kd_stream*& out, std::string& error);
    cb_status stream_destroy(kd_stream* stream, std::string& error);
    cb_status stream_synchronize(kd_stream* stream, std::string& error);
    cb_status stream_query(kd_stream* stream,
                           std::string& error);  // CB_OK when idle, CB_ERR_BUSY while work is pending
    cb_status event_create(kd_device* device, kd_event*& out, std::string& error);
    cb_status event_destroy(kd_event* event, std::string& error);
    cb_status event_record(kd_event* event, kd_stream* stream, std::string& error);  // stream nullptr: default stream
    cb_status event_synchronize(kd_event* event, std::string& error);
    cb_status event_query(kd_event* event, std::string& error);  // CB_OK when reached, CB_ERR_BUSY before
    cb_status event_elapsed_ms(kd_event* start, kd_event* end, float& out_ms, std::string& error);
    cb_status synchronize(kd_device* device, std::string& error);
    // cuStreamWaitEvent(stream, event, 0); stream nullptr: the default stream. The event must be
    // this device's.
    cb_status stream_wait_event(kd_device* device, kd_stream* stream, kd_event* event, std::string& error);

    // ---- kernels ----
    // A built-in (builtin_kernels.h) parsed by parse_builtin and run from the embedded fatbin;
    // float32/float64 matmul through cuBLAS when it loads. stream nullptr: waits for completion.
    cb_status launch_builtin(kd_device* device, const cb_kernel_launch& launch, kd_stream* stream, std::string& error);
    // CB_MODULE_CUDA_SOURCE is compiled with NVRTC for the device (kernels must be extern "C");
    // PTX, CUBIN and FATBIN go to cuModuleLoadDataEx. The compiler's or JIT's log goes to *log.
    // CB_MODULE_HOST_KERNELS (C functions for simulated GPUs) is CB_ERR_UNSUPPORTED.
    cb_status module_load(kd_device* device, const void* image, size_t size, cb_module_format format, kd_module*& out,
                          std::string& error, std::string* log = nullptr);
    cb_status module_unload(kd_module* module, std::string& error);
    // cuModuleGetGlobal: a module variable's device address and size.
    cb_status module_global(kd_module* module, const std::string& name, uint64_t& address, uint64_t& bytes,
                            std::string& error);
    // cuFuncGetParamInfo: where a kernel's parameter lies in its buffer, and its size.
    cb_status kernel_param_info(kd_module* module, const std::string& name, uint32_t index, uint64_t& offset,
                                uint64_t& size, std::string& error);
    // launch.name is the kernel's symbol; grid and block must be non-zero. Arguments are packed
    // by the kernel's parameter sizes when the driver reports them (cuFuncGetParamInfo): a
    // FLOAT64 for a 4-byte parameter becomes a float, an INT64 an int; else each argument is
    // passed as 8 bytes (CB_ARG_BYTES as its bytes).
    cb_status launch_kernel(kd_module* module, const cb_kernel_launch& launch, kd_stream* stream, std::string& error);

    // ---- management (NVML) ----
    cb_status telemetry(kd_device* device, cb_gpu_telemetry& out, std::string& error) const;
    // The processes computing on it, as NVML lists them (nvml_processes.hpp).
    cb_status processes(kd_device* device, std::vector<cb_gpu_process>& out, std::string& error) const;
    cb_status telemetry_details(kd_device* device, kd_telemetry_details& out, std::string& error) const;
    cb_status settings(kd_device* device, cb_gpu_settings& out, std::string& error) const;
    cb_status setting_limits(kd_device* device, cb_gpu_setting_limits& out, std::string& error) const;
    // Out of bounds: CB_ERR_INVALID_ARGUMENT before anything is changed; not root:
    // CB_ERR_PERMISSION ("needs root ..."); a performance state cannot be forced through NVML.
    cb_status apply_settings(kd_device* device, const cb_gpu_settings& settings, std::string& error);
    // No process-level GPU reset exists in CUDA or NVML: CB_ERR_UNSUPPORTED with what to run.
    cb_status reset(kd_device* device, cb_reset_kind kind, std::string& error);
    // A cheap driver round trip; CB_ERR_DEVICE_LOST when the device or its context is gone.
    // out_counter: NVML's energy counter in mJ (advances while the GPU is powered), or the number
    // of successful heartbeats when the board does not report energy.
    cb_status heartbeat(kd_device* device, uint64_t& out_counter, std::string& error);

private:
    struct registry;

    cb_status unavailable(std::string& error) const;
    cb_status check_device(kd_device* device, std::string& error) const;
    cb_status check_stream(kd_stream* stream, std::string& error, kd_device** device = nullptr) const;
    cb_status check_event(kd_event* event, std::string& error) const;
    cb_status check_module(kd_module* module, std::string& error) const;
    cb_status current(kd_device* device, std::string& error) const;  // check + cuCtxSetCurrent
    cb_status stream_of(kd_device* device, kd_stream* stream, cu::CUstream& out, std::string& error) const;
    cb_status cuda(cu::CUresult result, const char* what, std::string& error) const;
    cb_status finish_sync(kd_device* device, kd_stream* stream, const char* what, std::string& error) const;

    kernel_driver_options options_;
    cuda_driver driver_;
    nvml_library nvml_;
    std::unique_ptr<registry> registry_;
};

}  // namespace cudabridge::nv

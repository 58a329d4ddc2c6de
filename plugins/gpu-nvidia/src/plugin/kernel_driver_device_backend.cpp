// device_backend over the kernel-driver backend (NVIDIA's driver through the CUDA driver API and
// NVML): each call forwards to kernel_driver_backend for one opened ordinal.
#include "plugin/backends.hpp"
#include "plugin/status_bridge.hpp"

#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

#include <cudabridge/cpp/host.hpp>

namespace cudabridge::nv {
namespace {

class kernel_driver_device_backend final : public device_backend {
public:
    kernel_driver_device_backend(kernel_driver_backend& driver, int ordinal) : kd_(driver) {
        run([&](std::string& error) { return kd_.open(ordinal, device_, error); });
    }
    ~kernel_driver_device_backend() override {
        std::string ignored;
        (void)kd_.close(device_, ignored);
    }

    void properties(cb_gpu_properties& out) override {
        run([&](std::string& error) { return kd_.properties(device_, out, error); });
    }
    uint64_t mem_alloc(uint64_t size) override {
        if (size == 0) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "mem_alloc: size 0");
        uint64_t p = 0;
        run([&](std::string& error) { return kd_.mem_alloc(device_, size, p, error); });
        return p;
    }
    void mem_free(uint64_t ptr) override {
        run([&](std::string& error) { return kd_.mem_free(device_, ptr, error); });
    }
    void mem_info(uint64_t& free, uint64_t& total) override {
        run([&](std::string& error) { return kd_.mem_info(device_, free, total, error); });
    }

    void memcpy_h2d(uint64_t dst, const void* src, size_t size, void* s) override {
        run([&](std::string& error) { return kd_.memcpy_h2d(device_, dst, src, size, stream(s), error); });
    }
    void memcpy_d2h(void* dst, uint64_t src, size_t size, void* s) override {
        run([&](std::string& error) { return kd_.memcpy_d2h(device_, dst, src, size, stream(s), error); });
    }
    void memcpy_d2d(uint64_t dst, uint64_t src, size_t size, void* s) override {
        run([&](std::string& error) { return kd_.memcpy_d2d(device_, dst, src, size, stream(s), error); });
    }
    void memset8(uint64_t dst, uint8_t value, size_t size, void* s) override {
        run([&](std::string& error) { return kd_.memset8(device_, dst, value, size, stream(s), error); });
    }
    void host_register(void* ptr, size_t size) override {
        run([&](std::string& error) { return kd_.host_register(device_, ptr, size, error); });
    }
    void host_unregister(void* ptr) override {
        run([&](std::string& error) { return kd_.host_unregister(device_, ptr, error); });
    }
    uint64_t mem_alloc_managed(uint64_t size) override {
        uint64_t ptr = 0;
        run([&](std::string& error) { return kd_.mem_alloc_managed(device_, size, ptr, error); });
        return ptr;
    }
    uint64_t host_device_address(const void* ptr) override {
        uint64_t address = 0;
        run([&](std::string& error) { return kd_.host_device_address(device_, ptr, address, error); });
        return address;
    }
    // The driver API has no per-process kernel time; CUDA programs time kernels with events.
    uint64_t kernel_time_ns() override {
        run([](std::string& error) {
            error = "kernel_time: the NVIDIA driver does not report a process's kernel time";
            return CB_ERR_UNSUPPORTED;
        });
        return 0;
    }
    // Nor how far a queue has got between two of its events: the watchdog relies on heartbeats.
    uint64_t progress() override {
        run([](std::string& error) {
            error = "progress: the NVIDIA driver does not report the progress of queued work";
            return CB_ERR_UNSUPPORTED;
        });
        return 0;
    }
    // Its own watchdog (a display GPU's) times kernels; it does not tell a process how long one ran.
    uint64_t kernel_running_ms() override {
        run([](std::string& error) {
            error = "kernel_running: the NVIDIA driver does not report how long a kernel has run";
            return CB_ERR_UNSUPPORTED;
        });
        return 0;
    }

    // The NVIDIA driver keeps BAR1 to itself (GPUDirect's mappings need its kernel module's help):
    // host code reaches device memory through copies there.
    void* mem_host_address(uint64_t, uint64_t) override {
        run([](std::string& error) {
            error = "mem_host_address: the NVIDIA driver backend gives no host mapping of device memory";
            return CB_ERR_UNSUPPORTED;
        });
        return nullptr;
    }
    // The NVIDIA driver shares memory through its own IPC handles (cuIpcGetMemHandle), which this
    // backend does not pass on yet.
    void mem_share(uint64_t, void*) override {
        run([](std::string& error) {
            error = "mem_share: the NVIDIA driver backend does not share device memory between processes yet";
            return CB_ERR_UNSUPPORTED;
        });
    }
    uint64_t mem_open_shared(const void*, uint64_t&) override {
        run([](std::string& error) {
            error = "mem_open_shared: the NVIDIA driver backend does not share device memory between processes yet";
            return CB_ERR_UNSUPPORTED;
        });
        return 0;
    }

    void* stream_create() override {
        kd_stream* s = nullptr;
        run([&](std::string& error) { return kd_.stream_create(device_, s, error); });
        return s;
    }
    void stream_destroy(void* s) override {
        run([&](std::string& error) { return kd_.stream_destroy(stream(s), error); });
    }
    void stream_synchronize(void* s) override {
        run([&](std::string& error) {
            return s ? kd_.stream_synchronize(stream(s), error) : kd_.synchronize(device_, error);
        });
    }
    bool stream_done(void* s) override {
        return done([&](std::string& error) { return kd_.stream_query(stream(s), error); });
    }
    void* event_create() override {
        kd_event* e = nullptr;
        run([&](std::string& error) { return kd_.event_create(device_, e, error); });
        return e;
    }
    void event_destroy(void* e) override {
        run([&](std::string& error) { return kd_.event_destroy(event(e), error); });
    }
    void event_record(void* e, void* s) override {
        run([&](std::string& error) { return kd_.event_record(event(e), stream(s), error); });
    }
    void event_synchronize(void* e) override {
        run([&](std::string& error) { return kd_.event_synchronize(event(e), error); });
    }
    bool event_done(void* e) override {
        return done([&](std::string& error) { return kd_.event_query(event(e), error); });
    }
    float event_elapsed_ms(void* start, void* end) override {
        float ms = 0;
        run([&](std::string& error) { return kd_.event_elapsed_ms(event(start), event(end), ms, error); });
        return ms;
    }
    void synchronize() override {
        run([&](std::string& error) { return kd_.synchronize(device_, error); });
    }
    void stream_wait_event(void* s, void* e) override {
        run([&](std::string& error) { return kd_.stream_wait_event(device_, stream(s), event(e), error); });
    }

    void launch_builtin(const cb_kernel_launch& launch, void* s) override {
        run([&](std::string& error) { return kd_.launch_builtin(device_, launch, stream(s), error); });
    }
    void* module_load(const void* image, size_t size, cb_module_format format, std::string& log) override {
        kd_module* m = nullptr;
        run([&](std::string& error) { return kd_.module_load(device_, image, size, format, m, error, &log); });
        return m;
    }
    void module_unload(void* m) override {
        run([&](std::string& error) { return kd_.module_unload(static_cast<kd_module*>(m), error); });
    }
    void module_global(void* m, const char* name, uint64_t& address, uint64_t& bytes) override {
        run([&](std::string& error) {
            return kd_.module_global(static_cast<kd_module*>(m), name, address, bytes, error);
        });
    }
    void kernel_param_info(void* m, const char* name, uint32_t index, uint64_t& offset, uint64_t& size) override {
        run([&](std::string& error) {
            return kd_.kernel_param_info(static_cast<kd_module*>(m), name, index, offset, size, error);
        });
    }
    void launch_kernel(void* m, const cb_kernel_launch& launch, void* s) override {
        run([&](std::string& error) {
            return kd_.launch_kernel(static_cast<kd_module*>(m), launch, stream(s), error);
        });
    }

    void telemetry(cb_gpu_telemetry& out) override {
        run([&](std::string& error) { return kd_.telemetry(device_, out, error); });
    }
    void settings(cb_gpu_settings& out) override {
        run([&](std::string& error) { return kd_.settings(device_, out, error); });
    }
    void setting_limits(cb_gpu_setting_limits& out) override {
        run([&](std::string& error) { return kd_.setting_limits(device_, out, error); });
    }
    void apply_settings(const cb_gpu_settings& s) override {
        run([&](std::string& error) { return kd_.apply_settings(device_, s, error); });
    }
    void reset(cb_reset_kind kind) override {
        run([&](std::string& error) { return kd_.reset(device_, kind, error); });
    }
    uint64_t heartbeat() override {
        uint64_t counter = 0;
        run([&](std::string& error) { return kd_.heartbeat(device_, counter, error); });
        return counter;
    }
    std::vector<cb_gpu_process> processes() override {
        std::vector<cb_gpu_process> out;
        run([&](std::string& error) { return kd_.processes(device_, out, error); });
        return out;
    }

private:
    static kd_stream* stream(void* s) { return static_cast<kd_stream*>(s); }
    static kd_event* event(void* e) { return static_cast<kd_event*>(e); }
    // CB_OK -> true, CB_ERR_BUSY -> false, anything else thrown.
    kernel_driver_backend& kd_;
    kd_device* device_ = nullptr;
};

}  // namespace

std::unique_ptr<device_backend> open_kernel_driver_device(kernel_driver_backend& driver, int ordinal) {
    return std::make_unique<kernel_driver_device_backend>(driver, ordinal);
}

}  // namespace cudabridge::nv

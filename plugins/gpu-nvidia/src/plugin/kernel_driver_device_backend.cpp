// device_backend over the kernel-driver backend (NVIDIA's driver through the CUDA driver API and
// NVML): each call forwards to kernel_driver_backend for one opened ordinal.
#include "plugin/backends.hpp"

#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

#include <cudabridge/cpp/host.hpp>

namespace cudabridge::nv {
namespace {

void check(const kernels::status& s) {
    if (!s.ok()) throw sdk::status_error(s.code, s.message);
}

class kernel_driver_device_backend final : public device_backend {
public:
    kernel_driver_device_backend(kernel_driver_backend& driver, int ordinal) : kd_(driver) {
        check(kd_.open(ordinal, device_));
    }
    ~kernel_driver_device_backend() override { (void)kd_.close(device_); }

    void properties(cb_gpu_properties& out) override { check(kd_.properties(device_, out)); }
    uint64_t mem_alloc(uint64_t size) override {
        if (size == 0) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "mem_alloc: size 0");
        uint64_t p = 0;
        check(kd_.mem_alloc(device_, size, p));
        return p;
    }
    void mem_free(uint64_t ptr) override { check(kd_.mem_free(device_, ptr)); }
    void mem_info(uint64_t& free, uint64_t& total) override { check(kd_.mem_info(device_, free, total)); }

    void memcpy_h2d(uint64_t dst, const void* src, size_t size, void* s) override {
        check(kd_.memcpy_h2d(device_, dst, src, size, stream(s)));
    }
    void memcpy_d2h(void* dst, uint64_t src, size_t size, void* s) override {
        check(kd_.memcpy_d2h(device_, dst, src, size, stream(s)));
    }
    void memcpy_d2d(uint64_t dst, uint64_t src, size_t size, void* s) override {
        check(kd_.memcpy_d2d(device_, dst, src, size, stream(s)));
    }
    void memset8(uint64_t dst, uint8_t value, size_t size, void* s) override {
        check(kd_.memset8(device_, dst, value, size, stream(s)));
    }
    void host_register(void* ptr, size_t size) override { check(kd_.host_register(device_, ptr, size)); }
    void host_unregister(void* ptr) override { check(kd_.host_unregister(device_, ptr)); }

    void* stream_create() override {
        kd_stream* s = nullptr;
        check(kd_.stream_create(device_, s));
        return s;
    }
    void stream_destroy(void* s) override { check(kd_.stream_destroy(stream(s))); }
    void stream_synchronize(void* s) override {
        check(s ? kd_.stream_synchronize(stream(s)) : kd_.synchronize(device_));
    }
    bool stream_done(void* s) override { return done(kd_.stream_query(stream(s))); }
    void* event_create() override {
        kd_event* e = nullptr;
        check(kd_.event_create(device_, e));
        return e;
    }
    void event_destroy(void* e) override { check(kd_.event_destroy(event(e))); }
    void event_record(void* e, void* s) override { check(kd_.event_record(event(e), stream(s))); }
    void event_synchronize(void* e) override { check(kd_.event_synchronize(event(e))); }
    bool event_done(void* e) override { return done(kd_.event_query(event(e))); }
    float event_elapsed_ms(void* start, void* end) override {
        float ms = 0;
        check(kd_.event_elapsed_ms(event(start), event(end), ms));
        return ms;
    }
    void synchronize() override { check(kd_.synchronize(device_)); }
    void stream_wait_event(void* s, void* e) override { check(kd_.stream_wait_event(device_, stream(s), event(e))); }

    void launch_builtin(const cb_kernel_launch& launch, void* s) override {
        check(kd_.launch_builtin(device_, launch, stream(s)));
    }
    void* module_load(const void* image, size_t size, cb_module_format format, std::string& log) override {
        kd_module* m = nullptr;
        check(kd_.module_load(device_, image, size, format, m, &log));
        return m;
    }
    void module_unload(void* m) override { check(kd_.module_unload(static_cast<kd_module*>(m))); }
    void launch_kernel(void* m, const cb_kernel_launch& launch, void* s) override {
        check(kd_.launch_kernel(static_cast<kd_module*>(m), launch, stream(s)));
    }

    void telemetry(cb_gpu_telemetry& out) override { check(kd_.telemetry(device_, out)); }
    void settings(cb_gpu_settings& out) override { check(kd_.settings(device_, out)); }
    void setting_limits(cb_gpu_setting_limits& out) override { check(kd_.setting_limits(device_, out)); }
    void apply_settings(const cb_gpu_settings& s) override { check(kd_.apply_settings(device_, s)); }
    void reset(cb_reset_kind kind) override { check(kd_.reset(device_, kind)); }
    uint64_t heartbeat() override {
        uint64_t counter = 0;
        check(kd_.heartbeat(device_, counter));
        return counter;
    }

private:
    static kd_stream* stream(void* s) { return static_cast<kd_stream*>(s); }
    static kd_event* event(void* e) { return static_cast<kd_event*>(e); }
    static bool done(const kernels::status& s) {
        if (s.code == CB_ERR_BUSY) return false;
        check(s);
        return true;
    }

    kernel_driver_backend& kd_;
    kd_device* device_ = nullptr;
};

}  // namespace

std::unique_ptr<device_backend> open_kernel_driver_device(kernel_driver_backend& driver, int ordinal) {
    return std::make_unique<kernel_driver_device_backend>(driver, ordinal);
}

}  // namespace cudabridge::nv

// device_backend over the userspace driver: each call forwards to userspace_device and turns a
// failed status into sdk::status_error carrying the driver's message.
#include "plugin/backends.hpp"
#include "plugin/status_bridge.hpp"

#include "userspace/driver/userspace_device.hpp"

#include <cudabridge/cpp/host.hpp>

#include <cstdio>
#include <cstring>

namespace cudabridge::nv {
namespace {

// A stable "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" for a device the driver cannot read a UUID
// from: two FNV-1a 64-bit hashes of what names the device (its PCI function id and model).
std::string derived_uuid(const std::string& name) {
    auto fnv = [&](uint64_t h) {
        for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
        return h;
    };
    const uint64_t hi = fnv(0xcbf29ce484222325ull), lo = fnv(0x84222325cbf29ce4ull);
    char text[48];
    std::snprintf(text, sizeof text, "GPU-%08x-%04x-%04x-%04x-%012llx", unsigned(hi >> 32), unsigned(hi >> 16) & 0xffff,
                  unsigned(hi) & 0xffff, unsigned(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffull));
    return text;
}

class userspace_device_backend final : public device_backend {
public:
    userspace_device_backend(const cb_gpu_open_params& p, const family_options& o,
                             std::shared_ptr<module_registry> modules)
        : device_(p.transport, p.transport_instance, p.link, options_of(o), std::move(modules)),
          function_id_(p.endpoint ? p.endpoint->id : "") {
        run([&](std::string& e) { return device_.init(e); });
    }
    ~userspace_device_backend() override {
        std::string ignored;
        device_.close(ignored);
    }

    void properties(cb_gpu_properties& out) override {
        run([&](std::string& e) { return device_.get_properties(out, e); });
        // The bus id is the transport's PCI function id; the UUID is derived from it (the
        // register interface has no UUID), stable across runs for the same function and model.
        if (!out.pci_bus_id[0] && !function_id_.empty())
            std::snprintf(out.pci_bus_id, sizeof out.pci_bus_id, "%s", function_id_.c_str());
        if (!out.uuid[0])
            std::snprintf(out.uuid, sizeof out.uuid, "%s", derived_uuid(function_id_ + "/" + out.name).c_str());
    }
    uint64_t mem_alloc(uint64_t size) override {
        uint64_t p = 0;
        run([&](std::string& e) { return device_.mem_alloc(size, p, e); });
        return p;
    }
    void mem_free(uint64_t ptr) override {
        run([&](std::string& e) { return device_.mem_free(ptr, e); });
    }
    void mem_info(uint64_t& free, uint64_t& total) override {
        run([&](std::string& e) { return device_.mem_info(free, total, e); });
    }

    void memcpy_h2d(uint64_t dst, const void* src, size_t size, void* s) override {
        run([&](std::string& e) { return device_.memcpy_h2d(dst, src, size, stream(s), e); });
    }
    void memcpy_d2h(void* dst, uint64_t src, size_t size, void* s) override {
        run([&](std::string& e) { return device_.memcpy_d2h(dst, src, size, stream(s), e); });
    }
    void memcpy_d2d(uint64_t dst, uint64_t src, size_t size, void* s) override {
        run([&](std::string& e) { return device_.memcpy_d2d(dst, src, size, stream(s), e); });
    }
    void memset8(uint64_t dst, uint8_t value, size_t size, void* s) override {
        run([&](std::string& e) { return device_.memset8(dst, value, size, stream(s), e); });
    }
    void host_register(void* ptr, size_t size) override {
        run([&](std::string& e) { return device_.host_register(ptr, size, e); });
    }
    void host_unregister(void* ptr) override {
        run([&](std::string& e) { return device_.host_unregister(ptr, e); });
    }
    uint64_t mem_alloc_managed(uint64_t size) override {
        uint64_t ptr = 0;
        run([&](std::string& e) { return device_.mem_alloc_managed(size, ptr, e); });
        return ptr;
    }
    uint64_t host_device_address(const void* ptr) override {
        uint64_t address = 0;
        run([&](std::string& e) { return device_.host_device_address(ptr, address, e); });
        return address;
    }
    uint64_t kernel_time_ns() override {
        uint64_t ns = 0;
        run([&](std::string& e) { return device_.kernel_time(ns, e); });
        return ns;
    }
    uint64_t progress() override {
        uint64_t count = 0;
        run([&](std::string& e) { return device_.progress(count, e); });
        return count;
    }
    uint64_t kernel_running_ms() override {
        uint64_t ms = 0;
        run([&](std::string& e) { return device_.kernel_running(ms, e); });
        return ms;
    }

    void* mem_host_address(uint64_t ptr, uint64_t size) override {
        void* host = nullptr;
        run([&](std::string& e) { return device_.mem_host_address(ptr, size, host, e); });
        return host;
    }

    void mem_share(uint64_t ptr, void* handle) override {
        run([&](std::string& e) { return device_.mem_share(ptr, handle, e); });
    }
    uint64_t mem_open_shared(const void* handle, uint64_t& bytes) override {
        uint64_t ptr = 0;
        run([&](std::string& e) { return device_.mem_open_shared(handle, ptr, bytes, e); });
        return ptr;
    }

    void* stream_create() override {
        userspace_stream* s = nullptr;
        run([&](std::string& e) { return device_.stream_create(s, e); });
        return s;
    }
    void stream_destroy(void* s) override {
        run([&](std::string& e) { return device_.stream_destroy(stream(s), e); });
    }
    void stream_synchronize(void* s) override {
        run([&](std::string& e) { return device_.stream_synchronize(stream(s), e); });
    }
    bool stream_done(void* s) override {
        return done([&](std::string& e) { return device_.stream_query(stream(s), e); });
    }
    void* event_create() override {
        userspace_event* ev = nullptr;
        run([&](std::string& e) { return device_.event_create(ev, e); });
        return ev;
    }
    void event_destroy(void* ev) override {
        run([&](std::string& e) { return device_.event_destroy(event(ev), e); });
    }
    void event_record(void* ev, void* s) override {
        run([&](std::string& e) { return device_.event_record(event(ev), stream(s), e); });
    }
    void event_synchronize(void* ev) override {
        run([&](std::string& e) { return device_.event_synchronize(event(ev), e); });
    }
    bool event_done(void* ev) override {
        return done([&](std::string& e) { return device_.event_query(event(ev), e); });
    }
    float event_elapsed_ms(void* start, void* end) override {
        float ms = 0;
        run([&](std::string& e) { return device_.event_elapsed_ms(event(start), event(end), ms, e); });
        return ms;
    }
    void synchronize() override {
        run([&](std::string& e) { return device_.device_synchronize(e); });
    }
    void stream_wait_event(void* s, void* ev) override {
        run([&](std::string& e) { return device_.stream_wait_event(stream(s), event(ev), e); });
    }

    void launch_builtin(const cb_kernel_launch& launch, void* s) override {
        run([&](std::string& e) { return device_.launch_builtin(launch, stream(s), e); });
    }
    void* module_load(const void* image, size_t size, cb_module_format format, std::string& log) override {
        userspace_module* m = nullptr;
        run([&](std::string& e) { return device_.module_load(image, size, format, m, log, e); });
        return m;
    }
    void module_unload(void* m) override {
        run([&](std::string& e) { return device_.module_unload(module(m), e); });
    }
    void module_global(void* m, const char* name, uint64_t& address, uint64_t& bytes) override {
        run([&](std::string& e) { return device_.module_global(module(m), name, address, bytes, e); });
    }
    void kernel_param_info(void* m, const char* name, uint32_t index, uint64_t& offset, uint64_t& size) override {
        run([&](std::string& e) { return device_.kernel_param_info(module(m), name, index, offset, size, e); });
    }
    void launch_kernel(void* m, const cb_kernel_launch& launch, void* s) override {
        run([&](std::string& e) { return device_.launch_kernel(module(m), launch, stream(s), e); });
    }

    void telemetry(cb_gpu_telemetry& out) override {
        run([&](std::string& e) { return device_.get_telemetry(out, e); });
    }
    void settings(cb_gpu_settings& out) override {
        run([&](std::string& e) { return device_.get_settings(out, e); });
    }
    void setting_limits(cb_gpu_setting_limits& out) override {
        run([&](std::string& e) { return device_.get_setting_limits(out, e); });
    }
    void apply_settings(const cb_gpu_settings& s) override {
        run([&](std::string& e) { return device_.apply_settings(s, e); });
    }
    void reset(cb_reset_kind kind) override {
        run([&](std::string& e) { return device_.reset(kind, e); });
    }
    uint64_t heartbeat() override {
        uint64_t counter = 0;
        run([&](std::string& e) { return device_.heartbeat(counter, e); });
        return counter;
    }
    std::vector<cb_gpu_process> processes() override {
        std::vector<cb_gpu_process> out;
        run([&](std::string& e) { return device_.processes(out, e); });
        return out;
    }

private:
    static userspace_options options_of(const family_options& o) {
        userspace_options u;
        u.timeout_ms = o.timeout_ms;
        u.staging_chunk_bytes = o.staging_chunk_bytes;
        u.use_interrupts = o.use_interrupts;
        return u;
    }
    static userspace_stream* stream(void* s) { return static_cast<userspace_stream*>(s); }
    static userspace_event* event(void* e) { return static_cast<userspace_event*>(e); }
    static userspace_module* module(void* m) { return static_cast<userspace_module*>(m); }
    // CB_OK -> true, CB_ERR_BUSY -> false, anything else thrown.
    userspace_device device_;
    std::string function_id_;  // "" when the caller did not say which endpoint this is
};

}  // namespace

std::unique_ptr<device_backend> open_userspace_device(const cb_gpu_open_params& params, const family_options& options,
                                                      std::shared_ptr<module_registry> modules) {
    return std::make_unique<userspace_device_backend>(params, options, std::move(modules));
}

}  // namespace cudabridge::nv

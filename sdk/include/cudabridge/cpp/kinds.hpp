// One C++ base class per plugin kind. Each fills its kind's C table with adapters that cast the
// instance back to the base and call the virtual method behind the exception firewall.
// Optional entries default to CB_ERR_UNSUPPORTED, which the host treats as an absent entry;
// required entries have no default.
#ifndef CUDABRIDGE_CPP_KINDS_HPP
#define CUDABRIDGE_CPP_KINDS_HPP

#include <cudabridge/cpp/firewall.hpp>
#include <cudabridge/plugin.h>

namespace cudabridge::sdk {

// Common state of every instance: the host it was created by.
class instance_base {
public:
    explicit instance_base(const host& h) : host_(h) {}
    virtual ~instance_base() = default;
    instance_base(const instance_base&) = delete;
    instance_base& operator=(const instance_base&) = delete;

    const host& host_services() const noexcept { return host_; }

protected:
    host host_;
};

// Adapter body: cast, then run the member call behind the firewall. `Base` is a type name, which
// parentheses would not compile around.
#define CB_SDK_CALL(Base, call)                                                         \
    auto* self = static_cast<Base*>(instance); /* NOLINT(bugprone-macro-parentheses) */ \
    return guard(self->host_services(), [&]() -> cb_status { return self->call; })

// ---------------------------------------------------------------------------------------------
class logsink : public instance_base {
public:
    using base_type = logsink;
    static constexpr cb_plugin_kind kind = CB_KIND_LOGSINK;
    using instance_base::instance_base;

    virtual cb_status write(const cb_log_record& record) = 0;
    virtual cb_status flush() { return CB_OK; }
    virtual void close() {}
    virtual cb_status write_batch(const cb_log_record* records, size_t count) {
        for (size_t i = 0; i < count; ++i) {
            cb_status st = write(records[i]);
            if (st != CB_OK) return st;
        }
        return CB_OK;
    }

    static const cb_logsink_table* table() {
        static const cb_logsink_table t = {sizeof(cb_logsink_table), &write_, &flush_, &close_, &write_batch_};
        return &t;
    }

private:
    static cb_status write_(void* instance, const cb_log_record* r) noexcept {
        if (r == nullptr) return CB_ERR_INVALID_ARGUMENT;
        CB_SDK_CALL(logsink, write(*r));
    }
    static cb_status flush_(void* instance) noexcept { CB_SDK_CALL(logsink, flush()); }
    static void close_(void* instance) noexcept {
        auto* self = static_cast<logsink*>(instance);
        guard(self->host_services(), [&] {
            self->close();
            return CB_OK;
        });
    }
    static cb_status write_batch_(void* instance, const cb_log_record* r, size_t n) noexcept {
        if (r == nullptr && n != 0) return CB_ERR_INVALID_ARGUMENT;
        CB_SDK_CALL(logsink, write_batch(r, n));
    }
};

// ---------------------------------------------------------------------------------------------
class safety_policy : public instance_base {
public:
    using base_type = safety_policy;
    static constexpr cb_plugin_kind kind = CB_KIND_SAFETY;
    using instance_base::instance_base;

    virtual cb_status check_compatibility(const cb_device_facts& facts, cb_verdict& out) = 0;
    virtual cb_status evaluate(const cb_health_history& history, cb_safety_decision& out) = 0;

    static const cb_safety_table* table() {
        static const cb_safety_table t = {sizeof(cb_safety_table), &check_, &evaluate_};
        return &t;
    }

private:
    static cb_status check_(void* instance, const cb_device_facts* f, cb_verdict* out) noexcept {
        if (f == nullptr || out == nullptr) return CB_ERR_INVALID_ARGUMENT;
        CB_SDK_CALL(safety_policy, check_compatibility(*f, *out));
    }
    static cb_status evaluate_(void* instance, const cb_health_history* h, cb_safety_decision* out) noexcept {
        if (h == nullptr || out == nullptr) return CB_ERR_INVALID_ARGUMENT;
        CB_SDK_CALL(safety_policy, evaluate(*h, *out));
    }
};

// ---------------------------------------------------------------------------------------------
// Not a plugin kind: the model a GPU family hands to a simulated fabric.
class endpoint_model : public instance_base {
public:
    using instance_base::instance_base;

    virtual cb_status config_read(uint32_t offset, void* data, uint32_t size) = 0;
    virtual cb_status config_write(uint32_t offset, const void* data, uint32_t size) = 0;
    virtual cb_status bar_info(uint32_t bar, cb_bar_info& out) = 0;
    virtual cb_status mmio_read(uint32_t bar, uint64_t offset, void* data, uint32_t size) = 0;
    virtual cb_status mmio_write(uint32_t bar, uint64_t offset, const void* data, uint32_t size) = 0;
    virtual cb_status reset(cb_reset_kind) { return CB_ERR_UNSUPPORTED; }
    virtual cb_status attach(const cb_endpoint_host_ops& ops) = 0;
    virtual void detach() {}
    // ABI 1.11: a host mapping of a memory BAR's range (optional).
    virtual cb_status bar_map(uint32_t, uint64_t, uint64_t, void*&) { return CB_ERR_UNSUPPORTED; }

    static const cb_endpoint_model_table* table() {
        static const cb_endpoint_model_table t = {sizeof(cb_endpoint_model_table),
                                                  &config_read_,
                                                  &config_write_,
                                                  &bar_info_,
                                                  &mmio_read_,
                                                  &mmio_write_,
                                                  &reset_,
                                                  &attach_,
                                                  &detach_,
                                                  &bar_map_};
        return &t;
    }

private:
    static cb_status config_read_(void* instance, uint32_t o, void* d, uint32_t s) noexcept {
        CB_SDK_CALL(endpoint_model, config_read(o, d, s));
    }
    static cb_status config_write_(void* instance, uint32_t o, const void* d, uint32_t s) noexcept {
        CB_SDK_CALL(endpoint_model, config_write(o, d, s));
    }
    static cb_status bar_info_(void* instance, uint32_t bar, cb_bar_info* out) noexcept {
        if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
        CB_SDK_CALL(endpoint_model, bar_info(bar, *out));
    }
    static cb_status mmio_read_(void* instance, uint32_t bar, uint64_t o, void* d, uint32_t s) noexcept {
        CB_SDK_CALL(endpoint_model, mmio_read(bar, o, d, s));
    }
    static cb_status mmio_write_(void* instance, uint32_t bar, uint64_t o, const void* d, uint32_t s) noexcept {
        CB_SDK_CALL(endpoint_model, mmio_write(bar, o, d, s));
    }
    static cb_status reset_(void* instance, cb_reset_kind k) noexcept { CB_SDK_CALL(endpoint_model, reset(k)); }
    static cb_status bar_map_(void* instance, uint32_t bar, uint64_t o, uint64_t s, void** out) noexcept {
        if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
        CB_SDK_CALL(endpoint_model, bar_map(bar, o, s, *out));
    }
    static cb_status attach_(void* instance, const cb_endpoint_host_ops* ops) noexcept {
        if (ops == nullptr) return CB_ERR_INVALID_ARGUMENT;
        CB_SDK_CALL(endpoint_model, attach(*ops));
    }
    static void detach_(void* instance) noexcept {
        auto* self = static_cast<endpoint_model*>(instance);
        guard(self->host_services(), [&] {
            self->detach();
            return CB_OK;
        });
    }
};

// ---------------------------------------------------------------------------------------------
class transport : public instance_base {
public:
    using base_type = transport;
    static constexpr cb_plugin_kind kind = CB_KIND_TRANSPORT;
    using instance_base::instance_base;

    static constexpr cb_status unsupported = CB_ERR_UNSUPPORTED;

    // The required entries (enumerate, open_link, close_link) have no default: the host refuses
    // a transport without them, so a C++ transport that lacks one must not build.
    virtual cb_status enumerate(cb_endpoint_info* out, size_t capacity, size_t& count) = 0;
    virtual cb_status open_link(const char* pci_function_id, cb_link** out) = 0;
    virtual cb_status close_link(cb_link* link) = 0;
    virtual cb_status authorize(const char*, cb_auth_state, const uint8_t*, size_t) { return unsupported; }
    virtual cb_status deauthorize(const char*) { return unsupported; }
    virtual cb_status set_event_handler(cb_transport_event_handler, void*) { return unsupported; }
    virtual cb_status config_read(cb_link*, uint32_t, void*, uint32_t) { return unsupported; }
    virtual cb_status config_write(cb_link*, uint32_t, const void*, uint32_t) { return unsupported; }
    virtual cb_status bar_info(cb_link*, uint32_t, cb_bar_info&) { return unsupported; }
    virtual cb_status mmio_read32(cb_link*, uint32_t, uint64_t, uint32_t&) { return unsupported; }
    virtual cb_status mmio_write32(cb_link*, uint32_t, uint64_t, uint32_t) { return unsupported; }
    virtual cb_status mmio_read64(cb_link*, uint32_t, uint64_t, uint64_t&) { return unsupported; }
    virtual cb_status mmio_write64(cb_link*, uint32_t, uint64_t, uint64_t) { return unsupported; }
    virtual cb_status mmio_write_block(cb_link*, uint32_t, uint64_t, const void*, size_t, cb_mmio_mapping) {
        return unsupported;
    }
    virtual cb_status mmio_read_block(cb_link*, uint32_t, uint64_t, void*, size_t) { return unsupported; }
    virtual cb_status dma_map(cb_link*, void*, size_t, cb_dma_direction, uint64_t&) { return unsupported; }
    virtual cb_status dma_unmap(cb_link*, uint64_t, size_t) { return unsupported; }
    virtual cb_status dma_limits(cb_link*, cb_dma_limits&) { return unsupported; }
    virtual cb_status set_interrupt_handler(cb_link*, cb_interrupt_handler, void*) { return unsupported; }
    virtual cb_status link_status(cb_link*, cb_link_status&) { return unsupported; }
    virtual cb_status reset_link(cb_link*, cb_reset_kind) { return unsupported; }
    virtual cb_status attach_endpoint_model(const char*, const cb_endpoint_model_table*, void*) { return unsupported; }
    virtual cb_status detach_endpoint_model(const char*) { return unsupported; }
    virtual cb_status control(const char*, char*, size_t, size_t*) { return unsupported; }
    virtual cb_status bar_map(cb_link*, uint32_t, uint64_t, uint64_t, void*&) { return unsupported; }  // ABI 1.11

    static const cb_transport_table* table();
};

namespace detail::transport_adapters {
using T = transport;
inline cb_status enumerate(void* instance, cb_endpoint_info* o, size_t cap, size_t* n) noexcept {
    if (n == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, enumerate(o, cap, *n));
}
inline cb_status authorize(void* instance, const char* id, cb_auth_state l, const uint8_t* k, size_t kl) noexcept {
    CB_SDK_CALL(T, authorize(id, l, k, kl));
}
inline cb_status deauthorize(void* instance, const char* id) noexcept { CB_SDK_CALL(T, deauthorize(id)); }
inline cb_status set_event_handler(void* instance, cb_transport_event_handler h, void* u) noexcept {
    CB_SDK_CALL(T, set_event_handler(h, u));
}
inline cb_status open_link(void* instance, const char* id, cb_link** out) noexcept {
    CB_SDK_CALL(T, open_link(id, out));
}
inline cb_status close_link(void* instance, cb_link* l) noexcept { CB_SDK_CALL(T, close_link(l)); }
inline cb_status config_read(void* instance, cb_link* l, uint32_t o, void* d, uint32_t s) noexcept {
    CB_SDK_CALL(T, config_read(l, o, d, s));
}
inline cb_status config_write(void* instance, cb_link* l, uint32_t o, const void* d, uint32_t s) noexcept {
    CB_SDK_CALL(T, config_write(l, o, d, s));
}
inline cb_status bar_info(void* instance, cb_link* l, uint32_t b, cb_bar_info* out) noexcept {
    if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, bar_info(l, b, *out));
}
inline cb_status mmio_read32(void* instance, cb_link* l, uint32_t b, uint64_t o, uint32_t* out) noexcept {
    if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, mmio_read32(l, b, o, *out));
}
inline cb_status mmio_write32(void* instance, cb_link* l, uint32_t b, uint64_t o, uint32_t v) noexcept {
    CB_SDK_CALL(T, mmio_write32(l, b, o, v));
}
inline cb_status mmio_read64(void* instance, cb_link* l, uint32_t b, uint64_t o, uint64_t* out) noexcept {
    if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, mmio_read64(l, b, o, *out));
}
inline cb_status mmio_write64(void* instance, cb_link* l, uint32_t b, uint64_t o, uint64_t v) noexcept {
    CB_SDK_CALL(T, mmio_write64(l, b, o, v));
}
inline cb_status mmio_write_block(void* instance, cb_link* l, uint32_t b, uint64_t o, const void* d, size_t s,
                                  cb_mmio_mapping m) noexcept {
    CB_SDK_CALL(T, mmio_write_block(l, b, o, d, s, m));
}
inline cb_status mmio_read_block(void* instance, cb_link* l, uint32_t b, uint64_t o, void* d, size_t s) noexcept {
    CB_SDK_CALL(T, mmio_read_block(l, b, o, d, s));
}
inline cb_status dma_map(void* instance, cb_link* l, void* p, size_t s, cb_dma_direction d, uint64_t* out) noexcept {
    if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, dma_map(l, p, s, d, *out));
}
inline cb_status dma_unmap(void* instance, cb_link* l, uint64_t iova, size_t s) noexcept {
    CB_SDK_CALL(T, dma_unmap(l, iova, s));
}
inline cb_status dma_limits(void* instance, cb_link* l, cb_dma_limits* out) noexcept {
    if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, dma_limits(l, *out));
}
inline cb_status set_interrupt_handler(void* instance, cb_link* l, cb_interrupt_handler h, void* u) noexcept {
    CB_SDK_CALL(T, set_interrupt_handler(l, h, u));
}
inline cb_status link_status(void* instance, cb_link* l, cb_link_status* out) noexcept {
    if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, link_status(l, *out));
}
inline cb_status reset_link(void* instance, cb_link* l, cb_reset_kind k) noexcept { CB_SDK_CALL(T, reset_link(l, k)); }
inline cb_status attach_model(void* instance, const char* id, const cb_endpoint_model_table* t, void* m) noexcept {
    CB_SDK_CALL(T, attach_endpoint_model(id, t, m));
}
inline cb_status detach_model(void* instance, const char* id) noexcept { CB_SDK_CALL(T, detach_endpoint_model(id)); }
inline cb_status control(void* instance, const char* request, char* reply, size_t size, size_t* needed) noexcept {
    if (request == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, control(request, reply, size, needed));
}
inline cb_status bar_map(void* instance, cb_link* l, uint32_t b, uint64_t o, uint64_t s, void** out) noexcept {
    if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, bar_map(l, b, o, s, *out));
}
}  // namespace detail::transport_adapters

inline const cb_transport_table* transport::table() {
    namespace a = detail::transport_adapters;
    static const cb_transport_table t = {sizeof(cb_transport_table),
                                         &a::enumerate,
                                         &a::authorize,
                                         &a::deauthorize,
                                         &a::set_event_handler,
                                         &a::open_link,
                                         &a::close_link,
                                         &a::config_read,
                                         &a::config_write,
                                         &a::bar_info,
                                         &a::mmio_read32,
                                         &a::mmio_write32,
                                         &a::mmio_read64,
                                         &a::mmio_write64,
                                         &a::mmio_write_block,
                                         &a::mmio_read_block,
                                         &a::dma_map,
                                         &a::dma_unmap,
                                         &a::dma_limits,
                                         &a::set_interrupt_handler,
                                         &a::link_status,
                                         &a::reset_link,
                                         &a::attach_model,
                                         &a::detach_model,
                                         &a::control,
                                         &a::bar_map};
    return &t;
}

// ---------------------------------------------------------------------------------------------
class gpu_family : public instance_base {
public:
    using base_type = gpu_family;
    static constexpr cb_plugin_kind kind = CB_KIND_GPU;
    using instance_base::instance_base;

    static constexpr cb_status unsupported = CB_ERR_UNSUPPORTED;
    using dev = cb_gpu_device*;
    using stream = cb_gpu_stream*;

    virtual cb_status claim(const cb_endpoint_info& endpoint, cb_bool& out) = 0;
    virtual cb_status device_count(uint32_t& out) {
        out = 0;
        return CB_OK;
    }
    virtual cb_status open_device(const cb_gpu_open_params& params, cb_gpu_device** out) = 0;
    virtual cb_status close_device(dev) = 0;
    virtual cb_status get_properties(dev, cb_gpu_properties& out) = 0;
    virtual cb_status mem_alloc(dev, uint64_t, uint64_t&) { return unsupported; }
    virtual cb_status mem_free(dev, uint64_t) { return unsupported; }
    virtual cb_status mem_info(dev, uint64_t&, uint64_t&) { return unsupported; }
    virtual cb_status memcpy_h2d(dev, uint64_t, const void*, size_t, stream) { return unsupported; }
    virtual cb_status memcpy_d2h(dev, void*, uint64_t, size_t, stream) { return unsupported; }
    virtual cb_status memcpy_d2d(dev, uint64_t, uint64_t, size_t, stream) { return unsupported; }
    virtual cb_status memset8(dev, uint64_t, uint8_t, size_t, stream) { return unsupported; }
    virtual cb_status stream_create(dev, cb_gpu_stream**) { return unsupported; }
    virtual cb_status stream_destroy(stream) { return unsupported; }
    virtual cb_status stream_synchronize(stream) { return unsupported; }
    virtual cb_status stream_query(stream) { return unsupported; }
    virtual cb_status event_create(dev, cb_gpu_event**) { return unsupported; }
    virtual cb_status event_destroy(cb_gpu_event*) { return unsupported; }
    virtual cb_status event_record(cb_gpu_event*, stream) { return unsupported; }
    virtual cb_status event_synchronize(cb_gpu_event*) { return unsupported; }
    virtual cb_status event_query(cb_gpu_event*) { return unsupported; }
    virtual cb_status event_elapsed_ms(cb_gpu_event*, cb_gpu_event*, float&) { return unsupported; }
    virtual cb_status device_synchronize(dev) { return unsupported; }
    virtual cb_status launch_builtin(dev, const cb_kernel_launch&, stream) { return unsupported; }
    virtual cb_status module_load(dev, const void*, size_t, cb_module_format, cb_gpu_module**, char*, size_t) {
        return unsupported;
    }
    virtual cb_status module_unload(cb_gpu_module*) { return unsupported; }
    virtual cb_status launch_kernel(cb_gpu_module*, const cb_kernel_launch&, stream) { return unsupported; }
    virtual cb_status get_telemetry(dev, cb_gpu_telemetry&) { return unsupported; }
    virtual cb_status get_settings(dev, cb_gpu_settings&) { return unsupported; }
    virtual cb_status get_setting_limits(dev, cb_gpu_setting_limits&) { return unsupported; }
    virtual cb_status apply_settings(dev, const cb_gpu_settings&) { return unsupported; }
    virtual cb_status reset(dev, cb_reset_kind) { return unsupported; }
    virtual cb_status heartbeat(dev, uint64_t&) { return unsupported; }
    virtual cb_status create_endpoint_model(const char*, void**, const cb_endpoint_model_table**) {
        return unsupported;
    }
    virtual cb_status destroy_endpoint_model(void*) { return unsupported; }
    // ABI 1.2: JSON request, reply written like a string getter (see cb_gpu_table.control).
    virtual cb_status control(const char* /*request*/, char* /*reply*/, size_t /*reply_size*/, size_t* /*needed*/) {
        return unsupported;
    }
    // ABI 1.3: pinned host memory and cross-stream waits.
    virtual cb_status host_register(dev, void*, size_t) { return unsupported; }
    virtual cb_status host_unregister(dev, void*) { return unsupported; }
    virtual cb_status stream_wait_event(stream, cb_gpu_event*) { return unsupported; }
    // ABI 1.8: a module variable's device address and size.
    virtual cb_status module_global(cb_gpu_module*, const char* /*name*/, uint64_t& /*address*/, uint64_t& /*bytes*/) {
        return unsupported;
    }
    // ABI 1.9: attached processes (out steps by out[0].struct_size), managed and zero-copy memory.
    virtual cb_status processes(dev, cb_gpu_process* /*out*/, size_t /*capacity*/, size_t& /*count*/) {
        return unsupported;
    }
    virtual cb_status mem_alloc_managed(dev, uint64_t /*size*/, uint64_t& /*ptr*/) { return unsupported; }
    virtual cb_status host_device_address(dev, const void* /*ptr*/, uint64_t& /*address*/) { return unsupported; }
    virtual cb_status kernel_time(dev, uint64_t& /*ns*/) { return unsupported; }
    // ABI 1.11: the host address of a device range through the BAR1 aperture.
    virtual cb_status mem_host_address(dev, uint64_t /*ptr*/, uint64_t /*size*/, void*& /*host*/) {
        return unsupported;
    }
    // ABI 1.13: a counter that moves whenever the device moves this process's work forward.
    virtual cb_status progress(dev, uint64_t& /*count*/) { return unsupported; }
    // ABI 1.14: where a kernel's parameter lies in its parameter buffer, and its size.
    virtual cb_status kernel_param_info(cb_gpu_module*, const char* /*name*/, uint32_t /*index*/, uint64_t& /*offset*/,
                                        uint64_t& /*size*/) {
        return unsupported;
    }
    // ABI 1.16: how long the kernel now running has run (0: none).
    virtual cb_status kernel_running(dev, uint64_t& /*ms*/) { return unsupported; }
    // ABI 1.17: device memory shared with other processes (a CB_GPU_SHARE_HANDLE_SIZE-byte handle).
    virtual cb_status mem_share(dev, uint64_t /*ptr*/, void* /*handle*/) { return unsupported; }
    virtual cb_status mem_open_shared(dev, const void* /*handle*/, uint64_t& /*ptr*/, uint64_t& /*bytes*/) {
        return unsupported;
    }

    static const cb_gpu_table* table();
};

namespace detail::gpu_adapters {
using T = gpu_family;
using dev = cb_gpu_device*;
using stream = cb_gpu_stream*;
#define CB_SDK_NONNULL(p) \
    if ((p) == nullptr) return CB_ERR_INVALID_ARGUMENT
inline cb_status claim(void* instance, const cb_endpoint_info* e, cb_bool* out) noexcept {
    CB_SDK_NONNULL(e);
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, claim(*e, *out));
}
inline cb_status device_count(void* instance, uint32_t* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, device_count(*out));
}
inline cb_status open_device(void* instance, const cb_gpu_open_params* p, dev* out) noexcept {
    CB_SDK_NONNULL(p);
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, open_device(*p, out));
}
inline cb_status close_device(void* instance, dev d) noexcept { CB_SDK_CALL(T, close_device(d)); }
inline cb_status get_properties(void* instance, dev d, cb_gpu_properties* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, get_properties(d, *out));
}
inline cb_status mem_alloc(void* instance, dev d, uint64_t s, uint64_t* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, mem_alloc(d, s, *out));
}
inline cb_status mem_free(void* instance, dev d, uint64_t p) noexcept { CB_SDK_CALL(T, mem_free(d, p)); }
inline cb_status mem_info(void* instance, dev d, uint64_t* f, uint64_t* t) noexcept {
    CB_SDK_NONNULL(f);
    CB_SDK_NONNULL(t);
    CB_SDK_CALL(T, mem_info(d, *f, *t));
}
inline cb_status memcpy_h2d(void* instance, dev d, uint64_t dst, const void* src, size_t n, stream s) noexcept {
    CB_SDK_CALL(T, memcpy_h2d(d, dst, src, n, s));
}
inline cb_status memcpy_d2h(void* instance, dev d, void* dst, uint64_t src, size_t n, stream s) noexcept {
    CB_SDK_CALL(T, memcpy_d2h(d, dst, src, n, s));
}
inline cb_status memcpy_d2d(void* instance, dev d, uint64_t dst, uint64_t src, size_t n, stream s) noexcept {
    CB_SDK_CALL(T, memcpy_d2d(d, dst, src, n, s));
}
inline cb_status memset8(void* instance, dev d, uint64_t dst, uint8_t v, size_t n, stream s) noexcept {
    CB_SDK_CALL(T, memset8(d, dst, v, n, s));
}
inline cb_status stream_create(void* instance, dev d, stream* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, stream_create(d, out));
}
inline cb_status stream_destroy(void* instance, stream s) noexcept { CB_SDK_CALL(T, stream_destroy(s)); }
inline cb_status stream_synchronize(void* instance, stream s) noexcept { CB_SDK_CALL(T, stream_synchronize(s)); }
inline cb_status stream_query(void* instance, stream s) noexcept { CB_SDK_CALL(T, stream_query(s)); }
inline cb_status event_create(void* instance, dev d, cb_gpu_event** out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, event_create(d, out));
}
inline cb_status event_destroy(void* instance, cb_gpu_event* e) noexcept { CB_SDK_CALL(T, event_destroy(e)); }
inline cb_status event_record(void* instance, cb_gpu_event* e, stream s) noexcept {
    CB_SDK_CALL(T, event_record(e, s));
}
inline cb_status event_synchronize(void* instance, cb_gpu_event* e) noexcept { CB_SDK_CALL(T, event_synchronize(e)); }
inline cb_status event_query(void* instance, cb_gpu_event* e) noexcept { CB_SDK_CALL(T, event_query(e)); }
inline cb_status event_elapsed_ms(void* instance, cb_gpu_event* a, cb_gpu_event* b, float* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, event_elapsed_ms(a, b, *out));
}
inline cb_status device_synchronize(void* instance, dev d) noexcept { CB_SDK_CALL(T, device_synchronize(d)); }
inline cb_status launch_builtin(void* instance, dev d, const cb_kernel_launch* l, stream s) noexcept {
    CB_SDK_NONNULL(l);
    CB_SDK_CALL(T, launch_builtin(d, *l, s));
}
inline cb_status module_load(void* instance, dev d, const void* img, size_t n, cb_module_format f, cb_gpu_module** out,
                             char* log, size_t log_size) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, module_load(d, img, n, f, out, log, log_size));
}
inline cb_status module_unload(void* instance, cb_gpu_module* m) noexcept { CB_SDK_CALL(T, module_unload(m)); }
inline cb_status launch_kernel(void* instance, cb_gpu_module* m, const cb_kernel_launch* l, stream s) noexcept {
    CB_SDK_NONNULL(l);
    CB_SDK_CALL(T, launch_kernel(m, *l, s));
}
inline cb_status get_telemetry(void* instance, dev d, cb_gpu_telemetry* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, get_telemetry(d, *out));
}
inline cb_status get_settings(void* instance, dev d, cb_gpu_settings* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, get_settings(d, *out));
}
inline cb_status get_setting_limits(void* instance, dev d, cb_gpu_setting_limits* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, get_setting_limits(d, *out));
}
inline cb_status apply_settings(void* instance, dev d, const cb_gpu_settings* s) noexcept {
    CB_SDK_NONNULL(s);
    CB_SDK_CALL(T, apply_settings(d, *s));
}
inline cb_status reset(void* instance, dev d, cb_reset_kind k) noexcept { CB_SDK_CALL(T, reset(d, k)); }
inline cb_status heartbeat(void* instance, dev d, uint64_t* out) noexcept {
    CB_SDK_NONNULL(out);
    CB_SDK_CALL(T, heartbeat(d, *out));
}
inline cb_status create_model(void* instance, const char* p, void** m, const cb_endpoint_model_table** t) noexcept {
    CB_SDK_NONNULL(m);
    CB_SDK_NONNULL(t);
    CB_SDK_CALL(T, create_endpoint_model(p, m, t));
}
inline cb_status destroy_model(void* instance, void* m) noexcept { CB_SDK_CALL(T, destroy_endpoint_model(m)); }
inline cb_status control(void* instance, const char* request, char* reply, size_t size, size_t* needed) noexcept {
    CB_SDK_NONNULL(request);
    CB_SDK_CALL(T, control(request, reply, size, needed));
}
inline cb_status host_register(void* instance, dev d, void* p, size_t n) noexcept {
    CB_SDK_NONNULL(p);
    CB_SDK_CALL(T, host_register(d, p, n));
}
inline cb_status host_unregister(void* instance, dev d, void* p) noexcept {
    CB_SDK_NONNULL(p);
    CB_SDK_CALL(T, host_unregister(d, p));
}
inline cb_status stream_wait_event(void* instance, stream s, cb_gpu_event* e) noexcept {
    CB_SDK_NONNULL(e);
    CB_SDK_CALL(T, stream_wait_event(s, e));
}
inline cb_status module_global(void* instance, cb_gpu_module* m, const char* name, uint64_t* address,
                               uint64_t* bytes) noexcept {
    CB_SDK_NONNULL(name);
    CB_SDK_NONNULL(address);
    CB_SDK_NONNULL(bytes);
    CB_SDK_CALL(T, module_global(m, name, *address, *bytes));
}
inline cb_status processes(void* instance, dev d, cb_gpu_process* out, size_t capacity, size_t* count) noexcept {
    CB_SDK_NONNULL(count);
    if (capacity != 0 && out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    CB_SDK_CALL(T, processes(d, out, capacity, *count));
}
inline cb_status mem_alloc_managed(void* instance, dev d, uint64_t size, uint64_t* ptr) noexcept {
    CB_SDK_NONNULL(ptr);
    CB_SDK_CALL(T, mem_alloc_managed(d, size, *ptr));
}
inline cb_status host_device_address(void* instance, dev d, const void* p, uint64_t* address) noexcept {
    CB_SDK_NONNULL(p);
    CB_SDK_NONNULL(address);
    CB_SDK_CALL(T, host_device_address(d, p, *address));
}
inline cb_status kernel_time(void* instance, dev d, uint64_t* ns) noexcept {
    CB_SDK_NONNULL(ns);
    CB_SDK_CALL(T, kernel_time(d, *ns));
}
inline cb_status mem_host_address(void* instance, dev d, uint64_t ptr, uint64_t size, void** host) noexcept {
    CB_SDK_NONNULL(host);
    CB_SDK_CALL(T, mem_host_address(d, ptr, size, *host));
}
inline cb_status progress(void* instance, dev d, uint64_t* count) noexcept {
    CB_SDK_NONNULL(count);
    CB_SDK_CALL(T, progress(d, *count));
}
inline cb_status kernel_param_info(void* instance, cb_gpu_module* m, const char* name, uint32_t index, uint64_t* offset,
                                   uint64_t* size) noexcept {
    CB_SDK_NONNULL(name);
    CB_SDK_NONNULL(offset);
    CB_SDK_NONNULL(size);
    CB_SDK_CALL(T, kernel_param_info(m, name, index, *offset, *size));
}
inline cb_status kernel_running(void* instance, dev d, uint64_t* ms) noexcept {
    CB_SDK_NONNULL(ms);
    CB_SDK_CALL(T, kernel_running(d, *ms));
}
inline cb_status mem_share(void* instance, dev d, uint64_t ptr, void* handle) noexcept {
    CB_SDK_NONNULL(handle);
    CB_SDK_CALL(T, mem_share(d, ptr, handle));
}
inline cb_status mem_open_shared(void* instance, dev d, const void* handle, uint64_t* ptr, uint64_t* bytes) noexcept {
    CB_SDK_NONNULL(handle);
    CB_SDK_NONNULL(ptr);
    CB_SDK_NONNULL(bytes);
    CB_SDK_CALL(T, mem_open_shared(d, handle, *ptr, *bytes));
}
#undef CB_SDK_NONNULL
}  // namespace detail::gpu_adapters

inline const cb_gpu_table* gpu_family::table() {
    namespace a = detail::gpu_adapters;
    static const cb_gpu_table t = {sizeof(cb_gpu_table),
                                   &a::claim,
                                   &a::device_count,
                                   &a::open_device,
                                   &a::close_device,
                                   &a::get_properties,
                                   &a::mem_alloc,
                                   &a::mem_free,
                                   &a::mem_info,
                                   &a::memcpy_h2d,
                                   &a::memcpy_d2h,
                                   &a::memcpy_d2d,
                                   &a::memset8,
                                   &a::stream_create,
                                   &a::stream_destroy,
                                   &a::stream_synchronize,
                                   &a::stream_query,
                                   &a::event_create,
                                   &a::event_destroy,
                                   &a::event_record,
                                   &a::event_synchronize,
                                   &a::event_query,
                                   &a::event_elapsed_ms,
                                   &a::device_synchronize,
                                   &a::launch_builtin,
                                   &a::module_load,
                                   &a::module_unload,
                                   &a::launch_kernel,
                                   &a::get_telemetry,
                                   &a::get_settings,
                                   &a::get_setting_limits,
                                   &a::apply_settings,
                                   &a::reset,
                                   &a::heartbeat,
                                   &a::create_model,
                                   &a::destroy_model,
                                   &a::control,
                                   &a::host_register,
                                   &a::host_unregister,
                                   &a::stream_wait_event,
                                   &a::module_global,
                                   &a::processes,
                                   &a::mem_alloc_managed,
                                   &a::host_device_address,
                                   &a::kernel_time,
                                   &a::mem_host_address,
                                   &a::progress,
                                   &a::kernel_param_info,
                                   &a::kernel_running,
                                   &a::mem_share,
                                   &a::mem_open_shared};
    return &t;
}

#undef CB_SDK_CALL

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_KINDS_HPP

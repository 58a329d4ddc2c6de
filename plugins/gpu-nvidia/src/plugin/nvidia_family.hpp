// The nvidia GPU family plugin: one cb_gpu_table over two backends — NVIDIA's kernel driver for
// GPUs the CUDA driver sees (open by ordinal), and the userspace driver for a GPU behind a
// transport link (open with a link) — and the simulated GPU offered to simulated fabrics as an
// endpoint model. Handles are checked against the live sets, so a stale or foreign handle is
// CB_ERR_INVALID_ARGUMENT, never a crash. The family owns the host-kernel registry that the
// userspace driver registers CB_MODULE_HOST_KERNELS modules in and the simulated GPUs it creates
// run them from: a GPU opened through this family instance over a model of another instance
// cannot run host kernels (the launch fails with CB_ERR_NOT_FOUND).
#pragma once

#include "plugin/family_options.hpp"
#include "plugin/handles.hpp"

#include <cudabridge/cpp/plugin.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace cudabridge::nv {

class kernel_driver_backend;
class device_model;
class module_registry;

class nvidia_family final : public sdk::gpu_family {
public:
    static constexpr sdk::plugin_identity identity{
        "nvidia", CB_MAKE_VERSION(0, 1, 0), "MIT",
        "NVIDIA GPUs: the CUDA driver on Linux, a userspace driver over a transport link, and a "
        "simulated GPU for simulated fabrics"};

    nvidia_family(const sdk::host& h, const sdk::config& c);
    ~nvidia_family() override;

    cb_status claim(const cb_endpoint_info& endpoint, cb_bool& out) override;
    cb_status device_count(uint32_t& out) override;
    cb_status open_device(const cb_gpu_open_params& params, cb_gpu_device** out) override;
    cb_status close_device(cb_gpu_device* device) override;
    cb_status get_properties(cb_gpu_device* device, cb_gpu_properties& out) override;
    cb_status mem_alloc(cb_gpu_device* device, uint64_t size, uint64_t& out) override;
    cb_status mem_free(cb_gpu_device* device, uint64_t ptr) override;
    cb_status mem_info(cb_gpu_device* device, uint64_t& free, uint64_t& total) override;
    cb_status memcpy_h2d(cb_gpu_device* device, uint64_t dst, const void* src, size_t size,
                         cb_gpu_stream* stream) override;
    cb_status memcpy_d2h(cb_gpu_device* device, void* dst, uint64_t src, size_t size, cb_gpu_stream* stream) override;
    cb_status memcpy_d2d(cb_gpu_device* device, uint64_t dst, uint64_t src, size_t size,
                         cb_gpu_stream* stream) override;
    cb_status memset8(cb_gpu_device* device, uint64_t dst, uint8_t value, size_t size, cb_gpu_stream* stream) override;
    cb_status host_register(cb_gpu_device* device, void* ptr, size_t size) override;
    cb_status host_unregister(cb_gpu_device* device, void* ptr) override;
    cb_status mem_alloc_managed(cb_gpu_device* device, uint64_t size, uint64_t& ptr) override;
    cb_status host_device_address(cb_gpu_device* device, const void* ptr, uint64_t& address) override;
    cb_status kernel_time(cb_gpu_device* device, uint64_t& ns) override;
    cb_status progress(cb_gpu_device* device, uint64_t& count) override;
    cb_status kernel_running(cb_gpu_device* device, uint64_t& ms) override;
    cb_status mem_host_address(cb_gpu_device* device, uint64_t ptr, uint64_t size, void*& host) override;
    cb_status mem_share(cb_gpu_device* device, uint64_t ptr, void* handle) override;
    cb_status mem_open_shared(cb_gpu_device* device, const void* handle, uint64_t& ptr, uint64_t& bytes) override;
    cb_status stream_create(cb_gpu_device* device, cb_gpu_stream** out) override;
    cb_status stream_destroy(cb_gpu_stream* stream) override;
    cb_status stream_synchronize(cb_gpu_stream* stream) override;
    cb_status stream_query(cb_gpu_stream* stream) override;
    cb_status event_create(cb_gpu_device* device, cb_gpu_event** out) override;
    cb_status event_destroy(cb_gpu_event* event) override;
    cb_status event_record(cb_gpu_event* event, cb_gpu_stream* stream) override;
    cb_status event_synchronize(cb_gpu_event* event) override;
    cb_status event_query(cb_gpu_event* event) override;
    cb_status event_elapsed_ms(cb_gpu_event* start, cb_gpu_event* end, float& out) override;
    cb_status device_synchronize(cb_gpu_device* device) override;
    cb_status stream_wait_event(cb_gpu_stream* stream, cb_gpu_event* event) override;
    cb_status launch_builtin(cb_gpu_device* device, const cb_kernel_launch& launch, cb_gpu_stream* stream) override;
    cb_status module_load(cb_gpu_device* device, const void* image, size_t size, cb_module_format format,
                          cb_gpu_module** out, char* log_buf, size_t log_size) override;
    cb_status module_unload(cb_gpu_module* module) override;
    cb_status module_global(cb_gpu_module* module, const char* symbol, uint64_t& address, uint64_t& bytes) override;
    cb_status kernel_param_info(cb_gpu_module* module, const char* name, uint32_t index, uint64_t& offset,
                                uint64_t& size) override;
    cb_status processes(cb_gpu_device* device, cb_gpu_process* out, size_t capacity, size_t& count) override;
    cb_status launch_kernel(cb_gpu_module* module, const cb_kernel_launch& launch, cb_gpu_stream* stream) override;
    cb_status get_telemetry(cb_gpu_device* device, cb_gpu_telemetry& out) override;
    cb_status get_settings(cb_gpu_device* device, cb_gpu_settings& out) override;
    cb_status get_setting_limits(cb_gpu_device* device, cb_gpu_setting_limits& out) override;
    cb_status apply_settings(cb_gpu_device* device, const cb_gpu_settings& settings) override;
    cb_status reset(cb_gpu_device* device, cb_reset_kind kind) override;
    cb_status heartbeat(cb_gpu_device* device, uint64_t& out) override;
    cb_status create_endpoint_model(const char* profile_json, void** out_model,
                                    const cb_endpoint_model_table** out_table) override;
    cb_status destroy_endpoint_model(void* model) override;
    cb_status control(const char* request, char* reply, size_t reply_size, size_t* needed) override;
    // The "drivers" control reply: which backends can run here and why.
    std::string drivers_json();

private:
    // The device's backend, kept alive for the caller even if the device is closed meanwhile.
    std::shared_ptr<device_backend> backend(cb_gpu_device* device);
    // The backend stream handle (nullptr for the default stream); checks it belongs to `device`.
    void* stream_of(cb_gpu_device* device, cb_gpu_stream* stream);
    // Copies of a live handle's contents (a reference could be freed by a concurrent destroy).
    cb_gpu_stream checked(cb_gpu_stream* stream);
    cb_gpu_event checked(cb_gpu_event* event);
    cb_gpu_module checked(cb_gpu_module* module);
    // Calls a backend member with a stream's or event's backend handle: CB_OK after it returns
    // (forward), or CB_OK when it says the work is done and CB_ERR_BUSY while not (poll).
    template <class Handle>
    cb_status forward(const Handle& h, void (device_backend::*call)(void*));
    template <class Handle>
    cb_status poll(const Handle& h, bool (device_backend::*done)(void*));
    kernel_driver_backend& kernel_driver();

    family_options options_;
    std::shared_ptr<module_registry> registry_;
    std::mutex mutex_;  // guards the sets and maps below, and kernel_driver_ creation
    std::unique_ptr<kernel_driver_backend> kernel_driver_;
    std::set<cb_gpu_device*> devices_;
    std::set<cb_gpu_stream*> streams_;
    std::set<cb_gpu_event*> events_;
    std::set<cb_gpu_module*> modules_;
    std::map<void*, std::unique_ptr<device_model>> models_;
};

}  // namespace cudabridge::nv

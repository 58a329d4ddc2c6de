#include "plugin/nvidia_family.hpp"

#include "sim/device_model/device_model.hpp"
#include "sim/modules/module_registry.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"
#include "sim/live_state/live_state.hpp"
#include "plugin/backends.hpp"
#include "plugin/family_control.hpp"
#include "plugin/model_request.hpp"

#include <cudabridge/cpp/records.hpp>
#include <cudabridge/cpp/text_out.hpp>

#include <Poco/JSON/Object.h>

#include <algorithm>
#include <sstream>
#include <cstring>

namespace cudabridge::nv {
namespace {

[[noreturn]] void invalid(const std::string& what) { throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, what); }

// Display controllers (class 0x03xx) of vendor 0x10de.
bool is_nvidia_gpu(const cb_endpoint_info& e) {
    return e.kind == CB_ENDPOINT_PCI_FUNCTION && e.pci_vendor_id == 0x10de && (e.pci_class_code >> 16) == 0x03;
}

// Wraps a backend handle of `device` in the family's handle and records it as live.
template <class Handle>
Handle* adopt(std::mutex& mutex, std::set<Handle*>& live, cb_gpu_device* device, void* backend_handle) {
    auto h = std::make_unique<Handle>();
    h->device = device;
    h->handle = backend_handle;
    std::lock_guard lock(mutex);
    live.insert(h.get());
    return h.release();
}

// Takes a live handle out of its set and returns what it named, under the lock: a concurrent
// second destroy of the same handle is refused instead of destroying the backend object twice.
template <class Handle>
Handle take(std::mutex& mutex, std::set<Handle*>& live, Handle* h, const char* what) {
    std::lock_guard lock(mutex);
    if (!h || !live.erase(h)) invalid(what);
    const Handle copy = *h;
    delete h;
    return copy;
}

// A copy of a live handle's contents, read under the lock: the caller keeps a copy, never a
// reference a concurrent destroy could free.
template <class Handle>
Handle copy_live(std::mutex& mutex, const std::set<Handle*>& live, Handle* h, const char* what) {
    std::lock_guard lock(mutex);
    if (!h || !live.count(h)) invalid(what);
    return *h;
}

// A size-prefixed record the backend fills, copied out honouring the caller's struct_size (an
// older host's record is shorter).
template <class Record, class Fill>
cb_status fill_record(Record& out, Fill&& fill) {
    Record r{};
    r.struct_size = sizeof r;
    fill(r);
    sdk::copy_record(&out, r);
    return CB_OK;
}

constexpr const char* not_a_stream = "not a live stream of the nvidia family";
constexpr const char* not_an_event = "not a live event of the nvidia family";
constexpr const char* not_a_module = "not a loaded module of the nvidia family";

}  // namespace

nvidia_family::nvidia_family(const sdk::host& h, const sdk::config&)
    : gpu_family(h), options_(declare_and_read_options(h)), registry_(std::make_shared<module_registry>()) {}

nvidia_family::~nvidia_family() {
    // Devices first (they may drive a link whose model we own), then the models.
    for (auto* d : devices_) delete d;
    for (auto* s : streams_) delete s;
    for (auto* e : events_) delete e;
    for (auto* m : modules_) delete m;
    devices_.clear();
    models_.clear();
}

kernel_driver_backend& nvidia_family::kernel_driver() {
    std::lock_guard lock(mutex_);
    if (!kernel_driver_) {
        kernel_driver_options o;
        o.cuda_library = options_.cuda_library;
        o.nvml_library = options_.nvml_library;
        kernel_driver_ = std::make_unique<kernel_driver_backend>(o);
    }
    return *kernel_driver_;
}

std::shared_ptr<device_backend> nvidia_family::backend(cb_gpu_device* device) {
    std::lock_guard lock(mutex_);
    if (!device || !devices_.count(device)) invalid("not an open device of the nvidia family");
    return device->backend;  // a copy: the caller's reference outlives a concurrent close_device
}

cb_gpu_stream nvidia_family::checked(cb_gpu_stream* on_stream) {
    return copy_live(mutex_, streams_, on_stream, not_a_stream);
}

cb_gpu_event nvidia_family::checked(cb_gpu_event* event) { return copy_live(mutex_, events_, event, not_an_event); }

cb_gpu_module nvidia_family::checked(cb_gpu_module* module) {
    return copy_live(mutex_, modules_, module, not_a_module);
}

template <class Handle>
cb_status nvidia_family::forward(const Handle& h, void (device_backend::*call)(void*)) {
    (*backend(h.device).*call)(h.handle);
    return CB_OK;
}

template <class Handle>
cb_status nvidia_family::poll(const Handle& h, bool (device_backend::*done)(void*)) {
    return (*backend(h.device).*done)(h.handle) ? CB_OK : CB_ERR_BUSY;
}

void* nvidia_family::stream_of(cb_gpu_device* device, cb_gpu_stream* on_stream) {
    if (!on_stream) return nullptr;
    const auto s = checked(on_stream);
    if (s.device != device) invalid("the stream belongs to another device");
    return s.handle;
}

// ---- devices ----------------------------------------------------------------------------------

cb_status nvidia_family::claim(const cb_endpoint_info& endpoint, cb_bool& out) {
    out = is_nvidia_gpu(endpoint) ? 1 : 0;
    return CB_OK;
}

cb_status nvidia_family::device_count(uint32_t& out) {
    out = kernel_driver().device_count();
    return CB_OK;
}

cb_status nvidia_family::open_device(const cb_gpu_open_params& params, cb_gpu_device** out) {
    if (!out) invalid("open_device: out is NULL");
    *out = nullptr;
    auto device = std::make_unique<cb_gpu_device>();
    if (params.transport) {
        if (!params.link) invalid("open_device: a transport without a link");
        device->backend = open_userspace_device(params, options_, registry_);
    } else if (params.ordinal >= 0) {
        device->backend = open_kernel_driver_device(kernel_driver(), params.ordinal);
    } else {
        invalid("open_device: give a transport link or a kernel-driver ordinal >= 0");
    }
    std::lock_guard lock(mutex_);
    devices_.insert(device.get());
    *out = device.release();
    return CB_OK;
}

cb_status nvidia_family::close_device(cb_gpu_device* device) {
    std::unique_ptr<cb_gpu_device> owned;
    {
        std::lock_guard lock(mutex_);
        if (!device || !devices_.count(device)) invalid("close_device: not an open device");
        devices_.erase(device);
        // Handles of the device die with it.
        auto drop = [&](auto& set) {
            for (auto it = set.begin(); it != set.end();) {
                if ((*it)->device == device) {
                    delete *it;
                    it = set.erase(it);
                } else {
                    ++it;
                }
            }
        };
        drop(streams_);
        drop(events_);
        drop(modules_);
        owned.reset(device);
    }
    owned.reset();  // drains and releases outside the lock
    return CB_OK;
}

cb_status nvidia_family::get_properties(cb_gpu_device* device, cb_gpu_properties& out) {
    cb_gpu_properties p{};
    p.struct_size = sizeof p;
    backend(device)->properties(p);
    sdk::copy_record(&out, p);
    return CB_OK;
}

// ---- memory -----------------------------------------------------------------------------------

cb_status nvidia_family::mem_alloc(cb_gpu_device* device, uint64_t size, uint64_t& out) {
    out = backend(device)->mem_alloc(size);
    return CB_OK;
}

cb_status nvidia_family::mem_free(cb_gpu_device* device, uint64_t ptr) {
    backend(device)->mem_free(ptr);
    return CB_OK;
}

cb_status nvidia_family::mem_info(cb_gpu_device* device, uint64_t& free, uint64_t& total) {
    backend(device)->mem_info(free, total);
    return CB_OK;
}

cb_status nvidia_family::memcpy_h2d(cb_gpu_device* device, uint64_t dst, const void* src, size_t size,
                                    cb_gpu_stream* on_stream) {
    if (!src && size) invalid("memcpy_h2d: source is NULL");
    const auto b = backend(device);
    b->memcpy_h2d(dst, src, size, stream_of(device, on_stream));
    return CB_OK;
}

cb_status nvidia_family::memcpy_d2h(cb_gpu_device* device, void* dst, uint64_t src, size_t size,
                                    cb_gpu_stream* on_stream) {
    if (!dst && size) invalid("memcpy_d2h: destination is NULL");
    const auto b = backend(device);
    b->memcpy_d2h(dst, src, size, stream_of(device, on_stream));
    return CB_OK;
}

cb_status nvidia_family::memcpy_d2d(cb_gpu_device* device, uint64_t dst, uint64_t src, size_t size,
                                    cb_gpu_stream* on_stream) {
    const auto b = backend(device);
    b->memcpy_d2d(dst, src, size, stream_of(device, on_stream));
    return CB_OK;
}

cb_status nvidia_family::memset8(cb_gpu_device* device, uint64_t dst, uint8_t value, size_t size,
                                 cb_gpu_stream* on_stream) {
    const auto b = backend(device);
    b->memset8(dst, value, size, stream_of(device, on_stream));
    return CB_OK;
}

cb_status nvidia_family::host_register(cb_gpu_device* device, void* ptr, size_t size) {
    backend(device)->host_register(ptr, size);
    return CB_OK;
}

cb_status nvidia_family::host_unregister(cb_gpu_device* device, void* ptr) {
    backend(device)->host_unregister(ptr);
    return CB_OK;
}

cb_status nvidia_family::mem_alloc_managed(cb_gpu_device* device, uint64_t size, uint64_t& ptr) {
    ptr = backend(device)->mem_alloc_managed(size);
    return CB_OK;
}

cb_status nvidia_family::host_device_address(cb_gpu_device* device, const void* ptr, uint64_t& address) {
    address = backend(device)->host_device_address(ptr);
    return CB_OK;
}

cb_status nvidia_family::kernel_time(cb_gpu_device* device, uint64_t& ns) {
    ns = backend(device)->kernel_time_ns();
    return CB_OK;
}

cb_status nvidia_family::progress(cb_gpu_device* device, uint64_t& count) {
    count = backend(device)->progress();
    return CB_OK;
}

cb_status nvidia_family::kernel_running(cb_gpu_device* device, uint64_t& ms) {
    ms = backend(device)->kernel_running_ms();
    return CB_OK;
}

cb_status nvidia_family::mem_host_address(cb_gpu_device* device, uint64_t ptr, uint64_t size, void*& host) {
    host = backend(device)->mem_host_address(ptr, size);
    return CB_OK;
}

cb_status nvidia_family::mem_share(cb_gpu_device* device, uint64_t ptr, void* handle) {
    backend(device)->mem_share(ptr, handle);
    return CB_OK;
}

cb_status nvidia_family::mem_open_shared(cb_gpu_device* device, const void* handle, uint64_t& ptr, uint64_t& bytes) {
    ptr = backend(device)->mem_open_shared(handle, bytes);
    return CB_OK;
}

// ---- streams and events -----------------------------------------------------------------------

cb_status nvidia_family::stream_create(cb_gpu_device* device, cb_gpu_stream** out) {
    if (!out) invalid("stream_create: out is NULL");
    *out = adopt(mutex_, streams_, device, backend(device)->stream_create());
    return CB_OK;
}

cb_status nvidia_family::event_create(cb_gpu_device* device, cb_gpu_event** out) {
    if (!out) invalid("event_create: out is NULL");
    *out = adopt(mutex_, events_, device, backend(device)->event_create());
    return CB_OK;
}

// Destroying, waiting for and polling a stream or an event: the same call on its device's
// backend, with the backend's handle.
cb_status nvidia_family::stream_destroy(cb_gpu_stream* on_stream) {
    return forward(take(mutex_, streams_, on_stream, not_a_stream), &device_backend::stream_destroy);
}
cb_status nvidia_family::event_destroy(cb_gpu_event* event) {
    return forward(take(mutex_, events_, event, not_an_event), &device_backend::event_destroy);
}
cb_status nvidia_family::stream_synchronize(cb_gpu_stream* on_stream) {
    return forward(checked(on_stream), &device_backend::stream_synchronize);
}
cb_status nvidia_family::event_synchronize(cb_gpu_event* event) {
    return forward(checked(event), &device_backend::event_synchronize);
}
cb_status nvidia_family::stream_query(cb_gpu_stream* on_stream) {
    return poll(checked(on_stream), &device_backend::stream_done);
}
cb_status nvidia_family::event_query(cb_gpu_event* event) { return poll(checked(event), &device_backend::event_done); }

cb_status nvidia_family::event_record(cb_gpu_event* event, cb_gpu_stream* on_stream) {
    const auto e = checked(event);
    backend(e.device)->event_record(e.handle, stream_of(e.device, on_stream));
    return CB_OK;
}

cb_status nvidia_family::event_elapsed_ms(cb_gpu_event* start, cb_gpu_event* end, float& out) {
    const auto a = checked(start);
    const auto b = checked(end);
    if (a.device != b.device) invalid("event_elapsed_ms: the events belong to different devices");
    out = backend(a.device)->event_elapsed_ms(a.handle, b.handle);
    return CB_OK;
}

cb_status nvidia_family::device_synchronize(cb_gpu_device* device) {
    backend(device)->synchronize();
    return CB_OK;
}

cb_status nvidia_family::stream_wait_event(cb_gpu_stream* on_stream, cb_gpu_event* event) {
    const auto e = checked(event);
    if (on_stream && checked(on_stream).device != e.device)
        invalid("stream_wait_event: the event belongs to another device than the stream");
    backend(e.device)->stream_wait_event(stream_of(e.device, on_stream), e.handle);
    return CB_OK;
}

// ---- kernels ----------------------------------------------------------------------------------

cb_status nvidia_family::launch_builtin(cb_gpu_device* device, const cb_kernel_launch& launch,
                                        cb_gpu_stream* on_stream) {
    const auto b = backend(device);
    b->launch_builtin(launch, stream_of(device, on_stream));
    return CB_OK;
}

cb_status nvidia_family::module_load(cb_gpu_device* device, const void* image, size_t size, cb_module_format format,
                                     cb_gpu_module** out, char* log_buf, size_t log_size) {
    if (!out) invalid("module_load: out is NULL");
    if (!image || size == 0) invalid("module_load: empty image");
    const auto b = backend(device);
    std::string log;
    auto copy_log = [&] {
        if (log_buf && log_size) {
            size_t n = std::min(log.size(), log_size - 1);
            std::memcpy(log_buf, log.data(), n);
            log_buf[n] = '\0';
        }
    };
    void* handle = nullptr;
    try {
        handle = b->module_load(image, size, format, log);
    } catch (...) {
        copy_log();
        throw;
    }
    copy_log();
    *out = adopt(mutex_, modules_, device, handle);
    return CB_OK;
}

cb_status nvidia_family::module_unload(cb_gpu_module* module) {
    const auto m = take(mutex_, modules_, module, not_a_module);
    backend(m.device)->module_unload(m.handle);
    return CB_OK;
}

cb_status nvidia_family::module_global(cb_gpu_module* module, const char* symbol, uint64_t& address, uint64_t& bytes) {
    const auto m = checked(module);
    backend(m.device)->module_global(m.handle, symbol, address, bytes);
    return CB_OK;
}

cb_status nvidia_family::kernel_param_info(cb_gpu_module* module, const char* name, uint32_t index, uint64_t& offset,
                                           uint64_t& size) {
    const auto m = checked(module);
    backend(m.device)->kernel_param_info(m.handle, name, index, offset, size);
    return CB_OK;
}

cb_status nvidia_family::launch_kernel(cb_gpu_module* module, const cb_kernel_launch& launch,
                                       cb_gpu_stream* on_stream) {
    const auto m = checked(module);
    backend(m.device)->launch_kernel(m.handle, launch, stream_of(m.device, on_stream));
    return CB_OK;
}

// ---- management -------------------------------------------------------------------------------

cb_status nvidia_family::get_telemetry(cb_gpu_device* device, cb_gpu_telemetry& out) {
    return fill_record(out, [&](cb_gpu_telemetry& t) { backend(device)->telemetry(t); });
}

cb_status nvidia_family::get_settings(cb_gpu_device* device, cb_gpu_settings& out) {
    return fill_record(out, [&](cb_gpu_settings& s) { backend(device)->settings(s); });
}

cb_status nvidia_family::get_setting_limits(cb_gpu_device* device, cb_gpu_setting_limits& out) {
    return fill_record(out, [&](cb_gpu_setting_limits& l) { backend(device)->setting_limits(l); });
}

cb_status nvidia_family::apply_settings(cb_gpu_device* device, const cb_gpu_settings& settings) {
    backend(device)->apply_settings(settings);
    return CB_OK;
}

cb_status nvidia_family::reset(cb_gpu_device* device, cb_reset_kind reset_kind) {
    backend(device)->reset(reset_kind);
    return CB_OK;
}

cb_status nvidia_family::processes(cb_gpu_device* device, cb_gpu_process* out, size_t capacity, size_t& count) {
    const std::vector<cb_gpu_process> listed = backend(device)->processes();
    count = listed.size();
    return sdk::copy_records(out, capacity, listed.data(), listed.size());
}

cb_status nvidia_family::heartbeat(cb_gpu_device* device, uint64_t& out) {
    out = backend(device)->heartbeat();
    return CB_OK;
}

// ---- simulation -------------------------------------------------------------------------------

cb_status nvidia_family::create_endpoint_model(const char* profile_json, void** out_model,
                                               const cb_endpoint_model_table** out_table) {
    if (!profile_json || !out_model || !out_table) invalid("create_endpoint_model: NULL argument");
    auto request = parse_model_request(profile_json);
    device_model_options o;
    o.compute_threads = options_.compute_threads;
    o.device_id = request.device_id;
    o.link_gen = request.pcie_link_gen;
    o.link_width = request.pcie_link_width;
    o.modules = registry_;
    if (options_.live_state) {
        auto dir = host_services().path(CB_PATH_STATE_DIR);
        if (dir && !dir->empty()) o.live_state_file = live_state_path(*dir, request.device_id);
    }
    std::unique_ptr<device_model> model;
    try {
        model = std::make_unique<device_model>(host_services(), request.profile, o);
    } catch (const std::runtime_error& e) {
        if (o.live_state_file.empty()) throw;
        // The simulator works without sharing; say why other processes will not see this device.
        host_services().log(CB_LOG_WARN, "gpu", std::string("simulated GPU: live state not shared: ") + e.what());
        o.live_state_file.clear();
        model = std::make_unique<device_model>(host_services(), request.profile, o);
    }
    void* handle = static_cast<sdk::endpoint_model*>(model.get());
    std::lock_guard lock(mutex_);
    models_[handle] = std::move(model);
    *out_model = handle;
    *out_table = sdk::endpoint_model::table();
    return CB_OK;
}

cb_status nvidia_family::destroy_endpoint_model(void* model) {
    std::unique_ptr<device_model> owned;
    {
        std::lock_guard lock(mutex_);
        auto it = models_.find(model);
        if (it == models_.end()) invalid("destroy_endpoint_model: not a model of this family");
        owned = std::move(it->second);
        models_.erase(it);
    }
    return CB_OK;
}

// ---- control (ABI 1.2) ------------------------------------------------------------------------

std::string nvidia_family::drivers_json() {
    const availability& a = kernel_driver().availability_status();
    Poco::JSON::Object kd;
    kd.set("available", a.available);
    kd.set("status", static_cast<int>(a.status));
    kd.set("reason", a.available ? std::string("NVIDIA's driver answers") : a.reason);
    kd.set("driver_version", a.driver_version);
    kd.set("device_count", a.device_count);
    Poco::JSON::Object us;
    us.set("available", true);
    us.set("reason", std::string("drives a GPU register by register over a transport link (the simulated GPU of a "
                                 "simulated fabric, or a tunnelled device)"));
    Poco::JSON::Object out;
    out.set("kernel_driver", kd);
    out.set("userspace", us);
    std::ostringstream text;
    out.stringify(text);
    return text.str();
}

cb_status nvidia_family::control(const char* request, char* reply, size_t reply_size, size_t* needed) {
    if (!request) invalid("control: request is NULL");
    const std::string answer = handle_family_control(request, [this] { return drivers_json(); });
    return sdk::copy_text_out(answer, reply, reply_size, needed);
}

}  // namespace cudabridge::nv

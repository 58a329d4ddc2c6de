// host::runtime: the session, the devices, the calling thread's current device, and the API
// entry points that pick the device and hand over to its device_context.
#include <cudabridge/host/runtime.hpp>

#include "connection/device_facts.hpp"
#include "connection/device_impl.hpp"
#include "runtime/device_context.hpp"
#include "runtime/visible_devices.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/paths.hpp>
#include <cudabridge/cpp/bool_text.hpp>
#include <cudabridge/cpp/text_out.hpp>

#include <cb_log.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

namespace cudabridge::host {
namespace {

// Each thread's current device, per runtime (a thread may use two runtimes).
thread_local std::map<const runtime*, int> current_device;

int current_of(const runtime* r) {
    auto it = current_device.find(r);
    return it == current_device.end() ? 0 : it->second;
}

// Read like a boolean setting; a value that is no boolean is refused aloud, not guessed at.
bool autoconnect_from_environment(bool fallback, session& s) {
    const auto v = core::secure_env("CUDABRIDGE_AUTOCONNECT");
    if (!v) return fallback;
    if (auto on = sdk::parse_bool(*v)) return *on;
    s.log_line(CB_LOG_WARN, CB_LOG_CAT_CUDA, "CUDABRIDGE_AUTOCONNECT ignored: " + sdk::not_a_bool_message(*v));
    return fallback;
}

// The connected eGPUs a selection names, in its order. A UUID entry needs each one's UUID: a
// silent look at each (no supervisor, no event) reads it.
std::vector<std::string> select_visible(session& s, const std::vector<std::string>& connected,
                                        const std::vector<visible_entry>& entries) {
    std::vector<std::string> uuids(connected.size());
    if (names_a_uuid(entries)) {
        for (size_t i = 0; i < connected.size(); ++i) {
            connect_options o;
            o.device = connected[i];
            o.observe = true;
            try {
                uuids[i] = connect(s, o)->properties().uuid;
            } catch (const connect_error&) {
                // an eGPU that cannot be looked at matches no UUID
            }
        }
    }
    std::vector<std::string> chosen;
    for (size_t position : resolve_visible_devices(entries, uuids)) chosen.push_back(connected[position]);
    return chosen;
}

}  // namespace

void check(cbError_t e) {
    if (e != cbSuccess) throw runtime_error(e, std::string(error_name(e)) + ": " + last_error_message());
}

runtime::runtime(runtime_options options) : options_(std::move(options)) {
    session_ = std::make_unique<session>(options_.session);
    std::vector<std::string> connected;  // enclosure ids, in the order detect gives them
    for (const auto& d : detect(*session_))
        if (d.connected_elsewhere) connected.push_back(d.enclosure.id);
    std::optional<std::vector<visible_entry>> visible;
    try {
        if (options_.visible_devices && options_.session.use_environment)
            visible = parse_visible_devices(std::getenv(visible_devices_variable));
        if (visible && !connected.empty()) connected = select_visible(*session_, connected, *visible);
    } catch (const core::error& e) {
        startup_error_ = e.what();
        session_->log_line(CB_LOG_ERROR, CB_LOG_CAT_CUDA, startup_error_);
        return;
    }
    // Attach to each connected eGPU; connect one when none is and that is allowed.
    std::string attach_error;
    for (const auto& id : connected) {
        connect_options o;
        o.device = id;
        o.reset_unanswering = options_.reset_unanswering;
        o.observe = options_.observe;
        try {
            adopt(connect(*session_, o));
        } catch (const connect_error& e) {
            attach_error = std::string("could not attach to ") + id + ": " + e.what();
            session_->log_line(CB_LOG_WARN, CB_LOG_CAT_CUDA, attach_error);
        }
    }
    const bool autoconnect = options_.session.use_environment
                                 ? autoconnect_from_environment(options_.autoconnect, *session_)
                                 : options_.autoconnect;
    // A selection applies to connected eGPUs; with none, the one a connect brings is device 0.
    const bool may_connect =
        !visible || (connected.empty() && !visible->empty() && visible->front().index == 0 && visible->size() == 1);
    if (device_count() == 0 && autoconnect && may_connect) {
        connect_options o;
        o.device = options_.device;
        o.enroll = options_.enroll;
        try {
            adopt(connect(*session_, o));
        } catch (const core::error& e) {
            startup_error_ = e.what();
        }
    } else if (device_count() == 0) {
        startup_error_ = !attach_error.empty() ? attach_error
                         : visible && connected.empty() && !visible->empty()
                             ? std::string(visible_devices_variable) + " names eGPUs, but none is connected"
                         : visible ? std::string(visible_devices_variable) + " selects no eGPU"
                                   : "no eGPU is connected (and connecting one was not asked for)";
    }
}

runtime::~runtime() {
    for (size_t i = count_.load(); i-- > 0;) contexts_[i].reset();
    session_.reset();
}

int runtime::adopt(std::unique_ptr<host::device> d) {
    const size_t n = count_.load();
    if (n >= max_devices)
        throw core::error(CB_ERR_BUSY, "this runtime holds " + std::to_string(max_devices) + " devices already");
    contexts_[n] = std::make_unique<device_context>(*session_, std::move(d));
    count_.store(n + 1, std::memory_order_release);
    return static_cast<int>(n);
}

int runtime::device_count() const noexcept {
    int n = 0;
    for (size_t i = 0; i < count_.load(std::memory_order_acquire); ++i)
        n += contexts_[i]->dev().state() != device_state::disconnected;
    return n;
}

std::vector<disconnect_report> runtime::disconnect_all(const disconnect_options& options) {
    std::vector<disconnect_report> out;
    for (size_t i = 0; i < count_.load(); ++i)
        if (contexts_[i]->dev().state() != device_state::disconnected)
            out.push_back(contexts_[i]->dev().disconnect(options));
    return out;
}

device_context& runtime::context(int ordinal) {
    if (ordinal < 0 || static_cast<size_t>(ordinal) >= count_.load())
        throw core::error(CB_ERR_INVALID_ARGUMENT, "no device " + std::to_string(ordinal));
    return *contexts_[static_cast<size_t>(ordinal)];
}
host::device& runtime::device(int ordinal) { return context(ordinal).dev(); }

cbError_t runtime::with_device(int ordinal, device_context*& out) {
    const size_t n = count_.load(std::memory_order_acquire);
    if (ordinal < 0 || static_cast<size_t>(ordinal) >= n) {
        out = nullptr;
        return set_last_error(
            n == 0 ? cbErrorNoDevice : cbErrorInvalidDevice,
            n == 0 ? "no eGPU is connected"
                   : "device " + std::to_string(ordinal) + " does not exist (" + std::to_string(n) + " known)");
    }
    out = contexts_[static_cast<size_t>(ordinal)].get();
    return cbSuccess;
}

#define CB_ON_CURRENT(expr)                                                          \
    device_context* c = nullptr;                                                     \
    if (cbError_t e_ = with_device(current_of(this), c); e_ != cbSuccess) return e_; \
    return c->expr

cbError_t runtime::set_device(int ordinal) {
    device_context* c = nullptr;
    if (cbError_t e = with_device(ordinal, c); e != cbSuccess) return e;
    current_device[this] = ordinal;
    return cbSuccess;
}

cbError_t runtime::get_device(int* ordinal) {
    if (!ordinal) return set_last_error(cbErrorInvalidValue, "cbGetDevice: NULL argument");
    *ordinal = current_of(this);
    return cbSuccess;
}

cbError_t runtime::get_properties(cbDeviceProp* prop, int ordinal) {
    if (!prop) return set_last_error(cbErrorInvalidValue, "cbGetDeviceProperties: NULL argument");
    device_context* c = nullptr;
    if (cbError_t e = with_device(ordinal, c); e != cbSuccess) return e;
    const cb_gpu_properties& p = c->dev().properties();
    const cb_endpoint_info& enc = c->dev().enclosure();
    *prop = cbDeviceProp{};
    sdk::copy_text(prop->name, p.name);
    sdk::copy_text(prop->uuid, p.uuid);
    sdk::copy_text(prop->architecture, p.architecture);
    sdk::copy_text(prop->backend, p.backend);
    sdk::copy_text(prop->pciBusId, p.pci_bus_id);
    sdk::copy_text(prop->linkName, generation_name(enc.generation));
    prop->pciVendorId = p.pci_vendor_id;
    prop->pciDeviceId = p.pci_device_id;
    prop->major = p.compute_major;
    prop->minor = p.compute_minor;
    prop->multiProcessorCount = static_cast<int>(p.sm_count);
    prop->warpSize = static_cast<int>(p.warp_size);
    prop->totalGlobalMem = static_cast<size_t>(p.total_memory);
    prop->maxThreadsPerBlock = static_cast<int>(p.max_threads_per_block);
    for (int i = 0; i < 3; ++i) {
        prop->maxThreadsDim[i] = static_cast<int>(p.max_block_dim[i]);
        prop->maxGridSize[i] = static_cast<int>(p.max_grid_dim[i]);
    }
    prop->sharedMemPerBlock = p.shared_memory_per_block;
    prop->memoryBusWidth = static_cast<int>(p.memory_bus_width);
    prop->l2CacheSize = static_cast<int>(p.l2_cache_bytes);
    prop->clockRate = static_cast<int>(p.clock_mhz) * 1000;
    prop->memoryClockRate = static_cast<int>(p.memory_clock_mhz) * 1000;
    prop->isSimulated = p.is_simulated;
    const cb_link_status l = c->dev().link_status();
    prop->linkBandwidthGBs = l.h2d_bandwidth_gbs;
    prop->pcieLinkGen = static_cast<int>(c->dev().impl().function.pcie_link_gen);
    prop->pcieLinkWidth = static_cast<int>(c->dev().impl().function.pcie_link_width);
    return cbSuccess;
}

cbError_t runtime::synchronize() { CB_ON_CURRENT(synchronize()); }
cbError_t runtime::reset_device() { CB_ON_CURRENT(reset()); }
cbError_t runtime::set_limit(cbLimit limit, size_t value) { CB_ON_CURRENT(set_limit(limit, value)); }
cbError_t runtime::get_limit(size_t* value, cbLimit limit) { CB_ON_CURRENT(get_limit(value, limit)); }
cbError_t runtime::malloc(void** ptr, size_t size) { CB_ON_CURRENT(malloc(ptr, size)); }
cbError_t runtime::free(void* ptr) { CB_ON_CURRENT(free(ptr)); }

cbError_t runtime::malloc_host(void** ptr, size_t size) {
    if (!ptr || size == 0) return set_last_error(cbErrorInvalidValue, "cbMallocHost: NULL argument or size 0");
    const size_t page = 4096;
    void* p = std::aligned_alloc(page, (size + page - 1) / page * page);
    if (!p) return set_last_error(cbErrorMemoryAllocation, "cbMallocHost: out of host memory");
    // Pinned for the current device when there is one; plain host memory otherwise.
    device_context* c = nullptr;
    if (with_device(current_of(this), c) == cbSuccess) {
        if (const cbError_t e = c->host_register(p, size); e != cbSuccess) {
            std::free(p);
            return e;
        }
    } else {
        take_last_error();
    }
    {
        std::lock_guard lock(host_allocations_mutex_);
        host_allocations_.insert(p);
    }
    *ptr = p;
    return cbSuccess;
}

cbError_t runtime::free_host(void* ptr) {
    if (!ptr) return cbSuccess;
    {
        std::lock_guard lock(host_allocations_mutex_);
        if (host_allocations_.erase(ptr) == 0)
            return set_last_error(cbErrorInvalidValue,
                                  "cbFreeHost: not a live pointer from cbMallocHost (freed already, or memory "
                                  "from elsewhere)");
    }
    device_context* c = nullptr;
    if (with_device(current_of(this), c) == cbSuccess) {
        c->host_unregister(ptr);
        take_last_error();  // not registered (no device then) is fine here
    }
    std::free(ptr);
    return cbSuccess;
}

cbError_t runtime::host_register(void* ptr, size_t size, unsigned flags) {
    if (flags != cbHostRegisterDefault) return set_last_error(cbErrorInvalidValue, "cbHostRegister: unknown flags");
    CB_ON_CURRENT(host_register(ptr, size));
}
cbError_t runtime::host_unregister(void* ptr) { CB_ON_CURRENT(host_unregister(ptr)); }
cbError_t runtime::host_device_pointer(void** out, void* host, unsigned flags) {
    CB_ON_CURRENT(host_device_pointer(out, host, flags));
}
cbError_t runtime::malloc_managed(void** ptr, size_t size, unsigned flags) {
    CB_ON_CURRENT(malloc_managed(ptr, size, flags));
}
cbError_t runtime::device_attribute(int* value, cbDeviceAttr attr, int ordinal) {
    if (!value) return set_last_error(cbErrorInvalidValue, "cbDeviceGetAttribute: value is NULL");
    device_context* c = nullptr;
    if (cbError_t e = with_device(ordinal, c); e != cbSuccess) return e;
    return c->attribute(attr, *value);
}
cbError_t runtime::memcpy(void* dst, const void* src, size_t n, cbMemcpyKind kind, cbStream_t s, bool async) {
    CB_ON_CURRENT(memcpy(dst, src, n, kind, s, async));
}
cbError_t runtime::memset(void* p, int v, size_t n, cbStream_t s, bool async) {
    CB_ON_CURRENT(memset(p, v, n, s, async));
}
cbError_t runtime::mem_get_info(size_t* f, size_t* t) { CB_ON_CURRENT(mem_get_info(f, t)); }
cbError_t runtime::kernel_time(unsigned long long* ns) { CB_ON_CURRENT(kernel_time(ns)); }
cbError_t runtime::mem_host_pointer(void** h, const void* d, size_t n) { CB_ON_CURRENT(mem_host_pointer(h, d, n)); }
cbError_t runtime::stream_create(cbStream_t* s, unsigned flags) { CB_ON_CURRENT(stream_create(s, flags)); }
cbError_t runtime::stream_destroy(cbStream_t s) { CB_ON_CURRENT(stream_destroy(s)); }
cbError_t runtime::stream_synchronize(cbStream_t s) { CB_ON_CURRENT(stream_synchronize(s)); }
cbError_t runtime::stream_query(cbStream_t s) { CB_ON_CURRENT(stream_query(s)); }
cbError_t runtime::stream_wait_event(cbStream_t s, cbEvent_t e) { CB_ON_CURRENT(stream_wait_event(s, e)); }
cbError_t runtime::event_create(cbEvent_t* e, unsigned flags) { CB_ON_CURRENT(event_create(e, flags)); }
cbError_t runtime::ipc_get_mem_handle(cbIpcMemHandle_t* h, void* p) { CB_ON_CURRENT(ipc_get_mem_handle(h, p)); }
cbError_t runtime::ipc_open_mem_handle(void** p, const cbIpcMemHandle_t& h, unsigned flags) {
    CB_ON_CURRENT(ipc_open_mem_handle(p, h, flags));
}
cbError_t runtime::ipc_close_mem_handle(void* p) { CB_ON_CURRENT(ipc_close_mem_handle(p)); }
cbError_t runtime::ipc_get_event_handle(cbIpcEventHandle_t* h, cbEvent_t e) {
    CB_ON_CURRENT(ipc_get_event_handle(h, e));
}
cbError_t runtime::ipc_open_event_handle(cbEvent_t* e, const cbIpcEventHandle_t& h) {
    CB_ON_CURRENT(ipc_open_event_handle(e, h));
}
cbError_t runtime::event_destroy(cbEvent_t e) { CB_ON_CURRENT(event_destroy(e)); }
cbError_t runtime::event_record(cbEvent_t e, cbStream_t s) { CB_ON_CURRENT(event_record(e, s)); }
cbError_t runtime::event_synchronize(cbEvent_t e) { CB_ON_CURRENT(event_synchronize(e)); }
cbError_t runtime::event_query(cbEvent_t e) { CB_ON_CURRENT(event_query(e)); }
cbError_t runtime::event_elapsed(float* ms, cbEvent_t a, cbEvent_t b) { CB_ON_CURRENT(event_elapsed(ms, a, b)); }
cbError_t runtime::launch_builtin(const char* name, cb_dtype dtype, const cbKernelArg* args, size_t n, cbStream_t s) {
    CB_ON_CURRENT(launch_builtin(name, dtype, args, n, s));
}
cbError_t runtime::module_load(cbModule_t* m, const void* image, size_t size, cb_module_format format) {
    CB_ON_CURRENT(module_load(m, image, size, format));
}
cbError_t runtime::module_unload(cbModule_t m) { CB_ON_CURRENT(module_unload(m)); }
cbError_t runtime::module_global(cbModule_t m, const char* name, void** address, size_t* bytes) {
    CB_ON_CURRENT(module_global(m, name, address, bytes));
}
cbError_t runtime::kernel_param_info(cbModule_t m, const char* name, size_t index, size_t* offset, size_t* size) {
    CB_ON_CURRENT(kernel_param_info(m, name, index, offset, size));
}
cbError_t runtime::launch_kernel(cbModule_t m, const char* name, cbDim3 grid, cbDim3 block, const cbKernelArg* args,
                                 size_t n, size_t shared, cbStream_t s) {
    CB_ON_CURRENT(launch_kernel(m, name, grid, block, args, n, shared, s));
}
cbError_t runtime::launch_kernel_params(cbModule_t m, const char* name, cbDim3 grid, cbDim3 block, void* const* params,
                                        size_t shared, cbStream_t s, uint32_t flags) {
    CB_ON_CURRENT(launch_kernel(m, name, grid, block, nullptr, 0, shared, s, params, flags));
}

void runtime::inject_copy_corruption() {
    device_context* c = nullptr;
    if (with_device(current_of(this), c) == cbSuccess) c->inject_copy_corruption();
}

#undef CB_ON_CURRENT

}  // namespace cudabridge::host

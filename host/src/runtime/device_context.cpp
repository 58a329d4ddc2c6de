// A device's runtime state: construction, the sticky error, release on reset or disconnect,
// and memory (the caching allocator, pinned host memory, copies, memset).
#include "runtime/device_context.hpp"

#include "connection/device_impl.hpp"

#include <cudabridge/host/session.hpp>

#include <cudabridge/cpp/bool_text.hpp>

#include <cb_log.h>

#include <cstdlib>
#include <cstring>

namespace cudabridge::host {
namespace {

bool flag_on(const std::optional<std::string>& v, bool fallback) {
    if (!v) return fallback;
    return sdk::parse_bool(*v).value_or(fallback);
}

}  // namespace

allocator_backend device_context::make_backend() {
    device_impl& d = dev_->impl();
    allocator_backend backend;
    backend.allocate = [&d](uint64_t size, uint64_t& ptr, std::string& error) {
        const cb_status st = d.s.gpu()->mem_alloc(d.s.gpu_instance(), d.handle, size, &ptr);
        if (st != CB_OK) error = core::last_error();
        return st;
    };
    backend.release = [&d](uint64_t ptr, std::string& error) {
        const cb_status st = d.handle ? d.s.gpu()->mem_free(d.s.gpu_instance(), d.handle, ptr) : CB_OK;
        if (st != CB_OK) error = core::last_error();
        return st;
    };
    return backend;
}

device_context::device_context(session& s, std::unique_ptr<host::device> dev) : s_(s), dev_(std::move(dev)) {
    allocator_ = std::make_unique<caching_allocator>(make_backend());
    memory_epoch_ = dev_->memory_epoch();
    has_stream_wait_ = CB_HAS_FIELD(dev_->gpu(), cb_gpu_table, stream_wait_event);
    const bool check = flag_on(s.safety_parameter("enable_data_integrity"), true);
    integrity_ =
        std::make_unique<integrity_checker>(*this, check, static_cast<uint32_t>(s.safety_number("max_retry_count", 3)));
    default_stream_ = std::make_unique<cbStream_st>();
    default_stream_->is_default = true;
    call("create the default stream", [&](gpu_call& g) -> cb_status { return create_default_stream(g); });
    dev_->set_release_hook([this](bool usable) { release(usable); });
    dev_->set_pending_probe([this] { return pending(); });
}

device_context::~device_context() {
    stop_watching();
    // Detach now, while the runtime's objects still exist for the release hook to free.
    dev_->impl().detach();
    dev_->set_release_hook(nullptr);
    dev_->set_pending_probe(nullptr);
    // The release hook dropped their GPU handles; the objects the application never destroyed
    // (a module it did not unload, say) go with the context, as in CUDA.
    std::lock_guard lock(objects_mutex_);
    delete_objects();
}

// The streams, events and modules the context still holds, after release() dropped their GPU
// handles: the destructor and cbDeviceReset both free them here.
void device_context::delete_objects() noexcept {
    for (auto* m : modules_) delete m;
    for (auto* s : streams_) delete s;
    for (auto* e : events_) delete e;
    modules_.clear();
    streams_.clear();
    events_.clear();
}

cb_status device_context::create_default_stream(gpu_call& g) {
    cb_status st = g.t->stream_create(g.instance, g.handle, &default_stream_->handle);
    if (st == CB_OK && has_stream_wait_) st = g.t->event_create(g.instance, g.handle, &default_stream_->barrier);
    return st;
}

// ---- errors ------------------------------------------------------------------------------------

std::string device_context::sticky_text() const {
    std::lock_guard lock(sticky_mutex_);
    return sticky_message_;
}

cbError_t device_context::make_sticky(cbError_t e, const std::string& message) {
    {
        std::lock_guard lock(sticky_mutex_);
        if (sticky_.load() == cbSuccess) {
            sticky_message_ = message + " (sticky: every call on this device fails until cbDeviceReset)";
            sticky_.store(e, std::memory_order_release);
        }
    }
    return set_last_error(e, sticky_text());
}

void device_context::clear_sticky() {
    std::lock_guard lock(sticky_mutex_);
    sticky_.store(cbSuccess);
    sticky_message_.clear();
}

cbError_t device_context::fail(const char* what, cb_status st) {
    const std::string& detail = core::last_error();  // read before anything below sets it again
    std::string message = std::string(what) + ": " + (detail.empty() ? core::status_description(st) : detail);
    cbError_t e = take_launch_failure() && st == CB_ERR_INTERNAL ? cbErrorLaunchFailure : to_runtime_error(st);
    // Work a disconnect aborted is lost with the device, whatever the GPU called it.
    const device_state now = dev_->state();
    if (now == device_state::disconnecting || now == device_state::disconnected || now == device_state::lost)
        e = cbErrorDeviceLost;
    if (st == CB_ERR_DMA_LIMIT) dev_->report_dma_refusal(message);
    // Work a recovery abandoned went with the reset, however the GPU reported the abandon.
    if (now == device_state::recovering) {
        e = cbErrorDeviceReset;
        message += " (the safety supervisor is resetting device " + dev_->id() + ": 'cudabridge-cli history' says why)";
    }
    return is_sticky(e) ? make_sticky(e, message) : set_last_error(e, message);
}

// Who reset the device, for the errors that report a reset: the supervisor's last action and its
// reason, else another program.
std::string device_context::reset_cause() const {
    const health_snapshot h = dev_->health();
    return h.last_action.empty() ? " by another program ('cudabridge-cli history' says who and why)"
                                 : " by the safety supervisor (" + h.last_action + ": " + h.last_reason + ")";
}

// As CUDA reports work a GPU reset took: cbErrorDeviceReset, sticky, naming the reset.
cbError_t device_context::abandoned_by_reset(const char* what) {
    all_work_done_after(dev_->work_abandons());  // reported once: later failures are their own
    return make_sticky(cbErrorDeviceReset, std::string(what) + ": " + core::last_error() + " (device " + dev_->id() +
                                               " was reset" + reset_cause() + ")");
}

cbError_t device_context::memory_dropped() {
    return make_sticky(cbErrorDeviceReset, "device " + dev_->id() + " was reset" + reset_cause() +
                                               "; its memory, streams and events are gone");
}

// ---- release (the device's hook: exclusive gate held) ------------------------------------------

void device_context::release(bool usable) noexcept {
    device_impl& d = dev_->impl();
    const cb_gpu_table* t = d.s.gpu();
    void* inst = d.s.gpu_instance();
    std::lock_guard run_lock(run_mutex_);  // a run's copies are gone with the streams
    clear(run_);
    run_open_.store(false, std::memory_order_release);
    std::lock_guard lock(objects_mutex_);
    auto drop_stream = [&](cbStream_st* st) {
        st->checks.clear();
        if (usable) integrity_->release(st->arena);
        st->arena = {};
        if (st->handle && d.handle) t->stream_destroy(inst, st->handle);
        if (st->barrier && d.handle) t->event_destroy(inst, st->barrier);
        st->handle = nullptr;
        st->barrier = nullptr;
        st->oldest_unfinished_ns = 0;
    };
    for (auto* st : streams_) drop_stream(st);
    drop_stream(default_stream_.get());
    for (auto* e : events_) {
        if (e->handle && d.handle) t->event_destroy(inst, e->handle);
        e->handle = nullptr;
    }
    for (auto* m : modules_) {
        if (m->handle && d.handle) t->module_unload(inst, m->handle);
        m->handle = nullptr;
    }
    if (CB_HAS_FIELD(t, cb_gpu_table, host_unregister) && d.handle)
        for (const auto& [start, size] : pinned_) t->host_unregister(inst, d.handle, reinterpret_cast<void*>(start));
    pinned_.clear();
    release_managed(t, inst, d.handle);
    // A usable device gets its memory back (the old allocator's destructor frees every block);
    // after a hard reset or a loss there is nothing left to free.
    if (!usable) allocator_->forget_all();
    allocator_ = std::make_unique<caching_allocator>(make_backend());
}

// ---- memory ------------------------------------------------------------------------------------

cbError_t device_context::device_error(const char* what) {
    return call(what, [](gpu_call&) -> cb_status { return CB_OK; });
}

bool device_context::is_device_range(uint64_t address, uint64_t bytes) const {
    if (allocator_->range_valid(address, bytes)) return true;
    if (opened_count_.load(std::memory_order_acquire) != 0) {  // another process's memory, opened here
        std::lock_guard lock(objects_mutex_);
        auto it = opened_memory_.upper_bound(address);
        if (it != opened_memory_.begin() && address - (--it)->first <= it->second.bytes &&
            bytes <= it->second.bytes - (address - it->first))
            return true;
    }
    // A module variable someone asked for by name (cbModuleGetGlobal) is device memory too. Every
    // copy asks this for its host side as well: without such variables it costs no lock.
    if (module_globals_.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(objects_mutex_);
    for (const cbModule_st* m : modules_) {
        auto it = m->globals.upper_bound(address);
        if (it == m->globals.begin()) continue;
        --it;
        if (address - it->first <= it->second && bytes <= it->second - (address - it->first)) return true;
    }
    return false;
}

cbError_t device_context::malloc(void** ptr, size_t size) {
    if (!ptr) return set_last_error(cbErrorInvalidValue, "cbMalloc: devPtr is NULL");
    uint64_t p = 0;
    const cbError_t e = call("cbMalloc", [&](gpu_call&) -> cb_status {
        std::string error;
        const cb_status st = allocator_->allocate(size, p, error);
        if (st != CB_OK) core::set_last_error(std::to_string(size) + " bytes: " + error);
        return st;
    });
    *ptr = e == cbSuccess ? reinterpret_cast<void*>(static_cast<uintptr_t>(p)) : nullptr;
    return e;
}

cbError_t device_context::free(void* ptr) {
    if (!ptr) return cbSuccess;
    if (cbError_t e = cbSuccess; free_managed(ptr, e)) return e;
    return call("cbFree", [&](gpu_call& g) -> cb_status {
        if (!allocator_->find(address_of(ptr))) {
            core::set_last_error("not a device allocation (or already freed)");
            return CB_ERR_INVALID_ARGUMENT;
        }
        // As cudaFree: the block may still be in use by queued work; wait for it.
        cb_status st = g.t->device_synchronize(g.instance, g.handle);
        std::string error;
        const cb_status freed = forget_shared(address_of(ptr)) ? allocator_->release_uncached(address_of(ptr), error)
                                                               : allocator_->release(address_of(ptr), error);
        if (freed != CB_OK) core::set_last_error(error);
        return st != CB_OK ? st : freed;
    });
}

cbError_t device_context::mem_get_info(size_t* free_bytes, size_t* total) {
    if (!free_bytes || !total) return set_last_error(cbErrorInvalidValue, "cbMemGetInfo: NULL argument");
    return call("cbMemGetInfo", [&](gpu_call& g) -> cb_status {
        uint64_t f = 0, t = 0;
        const cb_status st = g.t->mem_info(g.instance, g.handle, &f, &t);
        // Blocks the allocator caches are free for cbMalloc.
        *free_bytes = static_cast<size_t>(f + allocator_->stats().cached_bytes);
        *total = static_cast<size_t>(t);
        return st;
    });
}

cbError_t device_context::kernel_time(unsigned long long* ns) {
    if (!ns) return set_last_error(cbErrorInvalidValue, "cbDeviceGetKernelTime: NULL argument");
    return call("cbDeviceGetKernelTime", [&](gpu_call& g) -> cb_status {
        uint64_t t = 0;
        const bool present = CB_HAS_FIELD(g.t, cb_gpu_table, kernel_time) && g.t->kernel_time;
        const cb_status st = present ? g.t->kernel_time(g.instance, g.handle, &t) : CB_ERR_UNSUPPORTED;
        if (st == CB_ERR_UNSUPPORTED && core::last_error().empty())
            core::set_last_error("the GPU family '" + s_.gpu_info().name +
                                 "' does not report its kernels' time (it predates ABI 1.10): time them with events");
        *ns = t;
        return st;
    });
}

cbError_t device_context::mem_host_pointer(void** host, const void* device, size_t size) {
    if (!host || !device || size == 0)
        return set_last_error(cbErrorInvalidValue, "cbMemGetHostPointer: NULL argument or size 0");
    *host = nullptr;
    if (!is_device_range(address_of(device), size))
        return set_last_error(cbErrorInvalidValue, "cbMemGetHostPointer: the range is not inside one allocation");
    return call("cbMemGetHostPointer", [&](gpu_call& g) -> cb_status {
        const bool present = CB_HAS_FIELD(g.t, cb_gpu_table, mem_host_address) && g.t->mem_host_address;
        const cb_status st =
            present ? g.t->mem_host_address(g.instance, g.handle, address_of(device), size, host) : CB_ERR_UNSUPPORTED;
        if (st == CB_ERR_UNSUPPORTED && core::last_error().empty())
            core::set_last_error("the GPU family '" + s_.gpu_info().name +
                                 "' gives no host mapping of device memory (it predates ABI 1.11)");
        return st;
    });
}

cbError_t device_context::host_register(void* ptr, size_t size) {
    if (!ptr || size == 0) return set_last_error(cbErrorInvalidValue, "cbHostRegister: NULL pointer or size 0");
    return call("cbHostRegister", [&](gpu_call& g) -> cb_status {
        // A family older than ABI 1.3 has no host_register, and one that answers
        // CB_ERR_UNSUPPORTED (a C++ family that does not override it) means the same: its copies
        // stay pageable, but the range is registered all the same, so cbHostUnregister answers as
        // on any family.
        if (CB_HAS_FIELD(g.t, cb_gpu_table, host_register)) {
            const cb_status st = g.t->host_register(g.instance, g.handle, ptr, size);
            if (st != CB_OK && st != CB_ERR_UNSUPPORTED) return st;
        }
        std::lock_guard lock(objects_mutex_);
        pinned_[reinterpret_cast<uintptr_t>(ptr)] = size;
        return CB_OK;
    });
}

cbError_t device_context::host_unregister(void* ptr) {
    if (!ptr) return set_last_error(cbErrorInvalidValue, "cbHostUnregister: NULL pointer");
    return call("cbHostUnregister", [&](gpu_call& g) -> cb_status {
        {
            std::lock_guard lock(objects_mutex_);
            if (!pinned_.count(reinterpret_cast<uintptr_t>(ptr))) {
                core::set_last_error("not a registered host range");
                return CB_ERR_INVALID_ARGUMENT;
            }
        }
        // Copies into or out of the range may still have end-to-end checks to settle, which read
        // it: settle them while it is still the caller's (CUDA's cudaFreeHost synchronizes too).
        // Their outcome reaches the supervisor as every check's does; a device error here is
        // the next synchronizing call's to report, and never keeps the memory registered.
        (void)g.t->device_synchronize(g.instance, g.handle);
        (void)settle_all_checks(g);
        {
            std::lock_guard lock(objects_mutex_);
            pinned_.erase(reinterpret_cast<uintptr_t>(ptr));
        }
        if (!CB_HAS_FIELD(g.t, cb_gpu_table, host_unregister)) return CB_OK;  // registered without the family
        const cb_status st = g.t->host_unregister(g.instance, g.handle, ptr);
        return st == CB_ERR_UNSUPPORTED ? CB_OK : st;  // unsupported is absent, as above
    });
}

cb_status device_context::copy_once(gpu_call& g, void* dst, const void* src, size_t count, cbMemcpyKind kind,
                                    cb_gpu_stream* stream) {
    switch (kind) {
    case cbMemcpyHostToDevice:
        return g.t->memcpy_h2d(g.instance, g.handle, address_of(dst), src, count, stream);
    case cbMemcpyDeviceToHost:
        return g.t->memcpy_d2h(g.instance, g.handle, dst, address_of(src), count, stream);
    case cbMemcpyDeviceToDevice:
        return g.t->memcpy_d2d(g.instance, g.handle, address_of(dst), address_of(src), count, stream);
    default:
        core::set_last_error("unsupported copy kind");
        return CB_ERR_INVALID_ARGUMENT;
    }
}

cbError_t device_context::memcpy(void* dst, const void* src, size_t count, cbMemcpyKind kind, cbStream_st* stream,
                                 bool async) {
    const char* what = async ? "cbMemcpyAsync" : "cbMemcpy";
    if (count == 0) return cbSuccess;
    if (!dst || !src) return set_last_error(cbErrorInvalidValue, std::string(what) + ": NULL pointer");
    if (stream && !owns(stream))
        return set_last_error(cbErrorInvalidResourceHandle, std::string(what) + ": unknown stream");
    const bool dst_dev = is_device_range(address_of(dst), count);
    const bool src_dev = is_device_range(address_of(src), count);
    // Managed memory is valid on either side: it is host memory the device reaches, so the copy
    // goes where the two pointers really are, whatever kind the caller named.
    const bool managed = is_managed_range(address_of(dst), count) || is_managed_range(address_of(src), count);
    // So is pinned host memory (cbMallocHost, cbHostRegister) named as the device side: the device
    // reaches it at its own address (unified addressing), and CUDA copies it where it is.
    const bool pinned_as_device = names_pinned_as_device(dst, src, count, kind, dst_dev, src_dev);
    if ((managed || pinned_as_device) && kind >= cbMemcpyHostToHost && kind <= cbMemcpyDefault) kind = cbMemcpyDefault;
    if (kind == cbMemcpyDefault)
        kind = dst_dev ? (src_dev ? cbMemcpyDeviceToDevice : cbMemcpyHostToDevice)
                       : (src_dev ? cbMemcpyDeviceToHost : cbMemcpyHostToHost);
    if (kind == cbMemcpyHostToHost) {
        // Kernels earlier on the stream may write that memory: the host copy waits for them.
        if (managed || pinned_as_device)
            if (const cbError_t e = wait_for_managed(stream, async); e != cbSuccess) return e;
        std::memmove(dst, src, count);
        return cbSuccess;
    }
    const bool want_dst_dev = kind == cbMemcpyHostToDevice || kind == cbMemcpyDeviceToDevice;
    const bool want_src_dev = kind == cbMemcpyDeviceToHost || kind == cbMemcpyDeviceToDevice;
    if (kind < cbMemcpyHostToHost || kind > cbMemcpyDefault)
        return set_last_error(cbErrorInvalidValue, std::string(what) + ": invalid copy kind");
    if ((want_dst_dev && !dst_dev) || (want_src_dev && !src_dev)) {
        // A lost or reset device took its allocations with it: say that, not "bad pointer".
        if (const cbError_t e = device_error(what); e != cbSuccess) return e;
        return set_last_error(cbErrorInvalidValue,
                              std::string(what) + ": " + (want_dst_dev && !dst_dev ? "destination" : "source") + " [" +
                                  std::to_string(address_of(want_dst_dev && !dst_dev ? dst : src)) + ", +" +
                                  std::to_string(count) + ") is not inside one device allocation");
    }
    // A small checked copy joins the run of such copies, checked together (copy_run.hpp).
    if (async && kind == cbMemcpyHostToDevice && count <= copy_run::largest_copy && integrity_->enabled())
        return call(
            what, [&](gpu_call& g) { return queue_small_copy(g, stream, dst, src, count); }, true);
    return call(what, [&](gpu_call& g) -> cb_status {
        if (!async) {
            const cb_status st = integrity_->enabled() ? integrity_->copy(g, dst, src, count, kind)
                                                       : copy_once(g, dst, src, count, kind, nullptr);
            // A synchronous copy waits for the default stream's earlier work: that work is done,
            // so the hang detector must not count its age (a long loop of launches and copies
            // made progress all along and was reset as hung).
            if (st == CB_OK) {
                std::lock_guard lock(objects_mutex_);
                default_stream_->oldest_unfinished_ns = 0;
            }
            return st;
        }
        cb_gpu_stream* ps = nullptr;
        cb_status st = prepare_stream(g, stream, ps);
        if (st == CB_OK) st = copy_once(g, dst, src, count, kind, ps);
        if (st == CB_OK && integrity_->enabled()) st = queue_check(g, stream, ps, dst, src, count, kind);
        return st;
    });
}

cb_status device_context::queue_small_copy(gpu_call& g, cbStream_st* stream, void* dst, const void* src, size_t count) {
    cbStream_st* s = stream ? stream : default_stream_.get();
    const uint64_t to = address_of(dst);
    std::lock_guard lock(run_mutex_);
    cb_status st = CB_OK;
    if (!run_.empty()) {
        const device_span span = span_with(run_, to, count);
        if (!joins(run_, s, to, count) || !is_device_range(span.start, span.size)) st = end_copy_run_locked(g);
    }
    cb_gpu_stream* ps = nullptr;
    if (st == CB_OK) st = prepare_stream(g, stream, ps);
    if (st == CB_OK) st = copy_once(g, dst, src, count, cbMemcpyHostToDevice, ps);
    if (st != CB_OK) return st;
    extend(run_, s, ps, to, src, count);
    run_open_.store(true, std::memory_order_release);
    return CB_OK;
}

cb_status device_context::end_copy_run(gpu_call& g) {
    std::lock_guard lock(run_mutex_);
    return end_copy_run_locked(g);
}

cb_status device_context::end_copy_run_locked(gpu_call& g) {
    if (run_.empty()) return CB_OK;
    run_open_.store(false, std::memory_order_release);
    const cb_status st = queue_check(g, run_.stream, run_.plugin_stream, reinterpret_cast<void*>(run_.start),
                                     run_.bytes.data(), run_.bytes.size(), cbMemcpyHostToDevice);
    clear(run_);
    return st;
}

cb_status device_context::queue_check(gpu_call& g, cbStream_st* stream, cb_gpu_stream* ps, void* dst, const void* src,
                                      size_t count, cbMemcpyKind kind) {
    cbStream_st* s = stream ? stream : default_stream_.get();
    // A full arena: settle what it holds first (the stream runs up to here).
    if (s->arena.used + integrity_checker::slots_for(count, kind) > crc_arena::slots) {
        cb_status st = g.t->stream_synchronize(g.instance, ps);
        if (st == CB_OK) st = settle_checks(g, s);
        if (st != CB_OK) return st;
    }
    if (kind == cbMemcpyHostToDevice && corrupt_next_copy_.exchange(false)) {
        // Injected fault: one flipped bit in VRAM after the link delivered the data.
        const auto flipped = static_cast<uint8_t>(static_cast<const uint8_t*>(src)[0] ^ 0x01u);
        if (const cb_status st = g.t->memset8(g.instance, g.handle, address_of(dst), flipped, 1, ps); st != CB_OK)
            return st;
    }
    pending_check c;
    std::lock_guard lock(objects_mutex_);
    if (kind == cbMemcpyDeviceToHost) forget_overwritten_checks_locked(dst, count);
    const cb_status st = integrity_->queue(g, ps, s->arena, dst, src, count, kind, c);
    if (st == CB_OK && c.size) s->checks.push_back(std::move(c));
    return st;
}

// A device-to-host copy into host bytes that an earlier copy's pending check still has to read:
// the earlier bytes will be gone before any wait lets the host (or the check) look at them, so
// that check can no longer be made (simpleStreams copies into one buffer a hundred times between
// two waits); the new copy's check covers what the program will see.
void device_context::forget_overwritten_checks_locked(const void* host, size_t count) {
    const auto first = reinterpret_cast<uintptr_t>(host);
    auto forget = [&](cbStream_st* s) {
        for (auto& c : s->checks) {
            const auto at = reinterpret_cast<uintptr_t>(c.host);
            if (c.kind == cbMemcpyDeviceToHost && c.size && at < first + count && first < at + c.size) c.size = 0;
        }
    };
    for (auto* s : streams_) forget(s);
    forget(default_stream_.get());
}

cbError_t device_context::memset(void* ptr, int value, size_t count, cbStream_st* stream, bool async) {
    const char* what = async ? "cbMemsetAsync" : "cbMemset";
    if (count == 0) return cbSuccess;
    if (stream && !owns(stream))
        return set_last_error(cbErrorInvalidResourceHandle, std::string(what) + ": unknown stream");
    if (is_managed_range(address_of(ptr), count)) {
        // Host memory the device reaches: filled here, in its place in line.
        if (const cbError_t e = wait_for_managed(stream, async); e != cbSuccess) return e;
        std::memset(ptr, value, count);
        return cbSuccess;
    }
    if (!is_device_range(address_of(ptr), count)) {
        if (const cbError_t e = device_error(what); e != cbSuccess) return e;
        return set_last_error(cbErrorInvalidValue, std::string(what) + ": [" + std::to_string(address_of(ptr)) + ", +" +
                                                       std::to_string(count) + ") is not inside one device allocation");
    }
    return call(what, [&](gpu_call& g) -> cb_status {
        cb_gpu_stream* ps = nullptr;
        cb_status st = async ? prepare_stream(g, stream, ps) : CB_OK;
        if (st == CB_OK)
            st = g.t->memset8(g.instance, g.handle, address_of(ptr), static_cast<uint8_t>(value), count, ps);
        return st;
    });
}

}  // namespace cudabridge::host

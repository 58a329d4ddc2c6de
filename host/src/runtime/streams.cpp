// Streams and events with CUDA's semantics. The default stream is the legacy one: work queued on
// it starts after the work queued before it on every blocking stream, and work on a blocking
// stream starts after the default stream's earlier work. The ordering is built from barrier
// events and stream_wait_event (ABI 1.3); without it, from host waits.
#include "runtime/device_context.hpp"

#include "connection/device_impl.hpp"

#include <algorithm>

namespace cudabridge::host {
namespace {

uint64_t now_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

}  // namespace

bool device_context::owns(const cbStream_st* s) const {
    std::lock_guard lock(objects_mutex_);
    return streams_.count(const_cast<cbStream_st*>(s)) > 0;
}

bool device_context::owns(const cbEvent_st* e) const {
    std::lock_guard lock(objects_mutex_);
    return events_.count(const_cast<cbEvent_st*>(e)) > 0;
}

bool device_context::owns(const cbModule_st* m) const {
    std::lock_guard lock(objects_mutex_);
    for (auto* x : modules_)
        if (x == m) return true;
    return false;
}

// `waiter` must not start its next work before `producer`'s work so far is done.
static cb_status order_after(gpu_call& g, bool has_wait, cbStream_st* waiter, cbStream_st* producer) {
    if (!has_wait || !producer->barrier) return g.t->stream_synchronize(g.instance, producer->handle);
    cb_status st = g.t->event_record(g.instance, producer->barrier, producer->handle);
    if (st == CB_OK) st = g.t->stream_wait_event(g.instance, waiter->handle, producer->barrier);
    // CB_ERR_UNSUPPORTED means a missing entry (a C++ family that does not override it): order
    // the streams by waiting on the host, as for a family without stream_wait_event.
    if (st == CB_ERR_UNSUPPORTED) return g.t->stream_synchronize(g.instance, producer->handle);
    return st;
}

cb_status device_context::prepare_stream(gpu_call& g, cbStream_st* s, cb_gpu_stream*& out) {
    if (!s) s = default_stream_.get();
    std::lock_guard lock(objects_mutex_);
    if (!s->handle) {
        core::set_last_error("the stream was dropped by a device reset");
        return CB_ERR_DEVICE_LOST;
    }
    cb_status st = CB_OK;
    if (s->is_default) {
        for (auto* o : streams_) {
            if ((o->flags & cbStreamNonBlocking) || !o->handle) continue;
            uint64_t& seen = s->waited[o];
            if (o->submitted > seen && (st = order_after(g, has_stream_wait_, s, o)) != CB_OK) return st;
            seen = o->submitted;
        }
    } else if (!(s->flags & cbStreamNonBlocking)) {
        cbStream_st* d = default_stream_.get();
        if (d->submitted > s->default_seen && (st = order_after(g, has_stream_wait_, s, d)) != CB_OK) return st;
        s->default_seen = d->submitted;
    }
    ++s->submitted;
    if (!s->oldest_unfinished_ns) s->oldest_unfinished_ns = now_ns();
    out = s->handle;
    return CB_OK;
}

cb_status device_context::settle_checks(gpu_call& g, cbStream_st* s) {
    std::lock_guard lock(objects_mutex_);
    s->oldest_unfinished_ns = 0;
    return integrity_->settle(g, s->arena, s->checks);
}

cb_status device_context::settle_all_checks(gpu_call& g) {
    std::vector<cbStream_st*> all;
    {
        std::lock_guard lock(objects_mutex_);
        all.assign(streams_.begin(), streams_.end());
    }
    all.push_back(default_stream_.get());
    cb_status first = CB_OK;
    for (auto* s : all) {
        const cb_status st = settle_checks(g, s);
        if (first == CB_OK) first = st;
    }
    return first;
}

cb_status device_context::settle_finished_checks(gpu_call& g) {
    std::vector<cbStream_st*> all;
    {
        std::lock_guard lock(objects_mutex_);
        all.assign(streams_.begin(), streams_.end());
        all.push_back(default_stream_.get());
        std::erase_if(all, [](cbStream_st* s) { return s->checks.empty() || !s->handle; });
    }
    cb_status first = CB_OK;
    for (auto* s : all) {
        if (g.t->stream_query(g.instance, s->handle) != CB_OK) continue;  // still running: not observable yet
        const cb_status st = settle_checks(g, s);
        if (first == CB_OK) first = st;
    }
    return first;
}

host::pending_work device_context::pending() {
    // Called by the supervisor under the device's shared gate: non-blocking queries only.
    uint64_t oldest = 0;
    bool busy = false;
    std::lock_guard lock(objects_mutex_);
    const uint64_t now = now_ns();  // after the lock: no stamp taken under it is newer
    auto look = [&](cbStream_st* s) {
        if (!s->oldest_unfinished_ns || !s->handle) return;
        if (dev_->gpu()->stream_query(dev_->gpu_instance(), s->handle) == CB_OK) {
            s->oldest_unfinished_ns = 0;
            return;
        }
        busy = true;
        if (now > s->oldest_unfinished_ns) oldest = std::max(oldest, (now - s->oldest_unfinished_ns) / 1000000);
    };
    for (auto* s : streams_) look(s);
    look(default_stream_.get());
    if (!busy) {
        progress_moved_ns_ = 0;  // nothing to move: the next work starts a fresh watch
        return {};
    }
    return {oldest, stalled_ms(now, oldest)};
}

// A hang is no progress, not old work: a deep queue that keeps retiring commands, or a long
// kernel whose blocks keep finishing, is not stalled however long ago it started. Stalled time
// counts from the later of the counter's last move and the oldest pending work's start.
uint64_t device_context::stalled_ms(uint64_t now, uint64_t oldest_ms) {
    const cb_gpu_table* t = dev_->gpu();
    uint64_t count = 0;
    const bool present = CB_HAS_FIELD(t, cb_gpu_table, progress) && t->progress;
    const cb_status st = present ? t->progress(dev_->gpu_instance(), dev_->impl().handle, &count) : CB_ERR_UNSUPPORTED;
    if (st == CB_ERR_UNSUPPORTED) return UINT64_MAX;  // the family cannot tell: not judged here
    if (st != CB_OK) return 0;                        // a device that does not answer is the heartbeat's to judge
    if (progress_moved_ns_ == 0 || count != progress_seen_) {
        progress_seen_ = count;
        progress_moved_ns_ = now;
    }
    const uint64_t started = now - std::min(now, oldest_ms * 1000000);
    const uint64_t still_since = std::max(progress_moved_ns_, started);
    return now > still_since ? (now - still_since) / 1000000 : 0;
}

// A command that failed on the device (a faulting kernel) surfaces at synchronization as
// CB_ERR_INTERNAL; as in CUDA it leaves the context unusable: a sticky launch failure.
static cb_status as_launch_failure(cb_status st) {
    if (st == CB_ERR_INTERNAL) mark_launch_failure();
    return st;
}

cbError_t device_context::stream_create(cbStream_st** out, unsigned flags) {
    if (!out) return set_last_error(cbErrorInvalidValue, "cbStreamCreate: NULL argument");
    if (flags & ~cbStreamNonBlocking) return set_last_error(cbErrorInvalidValue, "cbStreamCreate: unknown flags");
    auto s = std::make_unique<cbStream_st>();
    s->flags = flags;
    const cbError_t e = call("cbStreamCreate", [&](gpu_call& g) -> cb_status {
        cb_status st = g.t->stream_create(g.instance, g.handle, &s->handle);
        if (st == CB_OK && has_stream_wait_) st = g.t->event_create(g.instance, g.handle, &s->barrier);
        if (st != CB_OK && s->handle) g.t->stream_destroy(g.instance, s->handle);
        return st;
    });
    if (e != cbSuccess) return e;
    std::lock_guard lock(objects_mutex_);
    // A new stream starts after what the default stream queued so far, like any later work.
    *out = s.get();
    streams_.insert(s.release());
    return cbSuccess;
}

cbError_t device_context::stream_destroy(cbStream_st* s) {
    if (!s || !owns(s)) return set_last_error(cbErrorInvalidResourceHandle, "cbStreamDestroy: unknown stream");
    const cbError_t e = call("cbStreamDestroy", [&](gpu_call& g) -> cb_status {
        // Queued work still runs (as CUDA); its checks settle now so none is lost.
        cb_status st = s->handle ? g.t->stream_synchronize(g.instance, s->handle) : CB_OK;
        const cb_status checked = settle_checks(g, s);
        integrity_->release(s->arena);
        if (s->handle) g.t->stream_destroy(g.instance, s->handle);
        if (s->barrier) g.t->event_destroy(g.instance, s->barrier);
        return st != CB_OK ? st : checked;
    });
    {
        std::lock_guard lock(objects_mutex_);
        streams_.erase(s);
        default_stream_->waited.erase(s);
    }
    delete s;
    return e;
}

cbError_t device_context::stream_synchronize(cbStream_st* s) {
    if (s && !owns(s)) return set_last_error(cbErrorInvalidResourceHandle, "cbStreamSynchronize: unknown stream");
    cbStream_st* target = s ? s : default_stream_.get();
    const uint64_t abandons = dev_->work_abandons();
    const cbError_t e = call("cbStreamSynchronize", [&](gpu_call& g) -> cb_status {
        if (!target->handle) return CB_ERR_DEVICE_LOST;
        const cb_status st = as_launch_failure(g.t->stream_synchronize(g.instance, target->handle));
        cb_status checked = settle_checks(g, target);
        if (checked == CB_OK && st == CB_OK) checked = settle_finished_checks(g);
        return st != CB_OK ? st : checked;
    });
    if (e == cbSuccess) all_work_done_after(abandons);
    return e;
}

cbError_t device_context::stream_query(cbStream_st* s) {
    if (s && !owns(s)) return set_last_error(cbErrorInvalidResourceHandle, "cbStreamQuery: unknown stream");
    cbStream_st* target = s ? s : default_stream_.get();
    cb_status q = CB_OK;
    const cbError_t e = call("cbStreamQuery", [&](gpu_call& g) -> cb_status {
        q = g.t->stream_query(g.instance, target->handle);
        if (q == CB_ERR_BUSY) return CB_OK;
        return q != CB_OK ? q : settle_finished_checks(g);
    });
    if (e == cbSuccess && q == CB_ERR_BUSY) return cbErrorNotReady;  // not an error to remember
    return e;
}

cbError_t device_context::stream_wait_event(cbStream_st* s, cbEvent_st* ev) {
    if ((s && !owns(s)) || !ev || !owns(ev))
        return set_last_error(cbErrorInvalidResourceHandle, "cbStreamWaitEvent: unknown stream or event");
    cbStream_st* target = s ? s : default_stream_.get();
    if (cbError_t e = cbSuccess; waited_elsewhere(ev, "cbStreamWaitEvent", e)) return e;
    return call("cbStreamWaitEvent", [&](gpu_call& g) -> cb_status {
        if (!ev->recorded) return CB_OK;
        if (has_stream_wait_) return g.t->stream_wait_event(g.instance, target->handle, ev->handle);
        return g.t->event_synchronize(g.instance, ev->handle);
    });
}

cbError_t device_context::event_create(cbEvent_st** out, unsigned flags) {
    if (!out) return set_last_error(cbErrorInvalidValue, "cbEventCreate: NULL argument");
    auto ev = std::make_unique<cbEvent_st>();
    if (flags & cbEventInterprocess) {
        std::string error;
        if (ev->shared = interprocess_event::create(error); !ev->shared)
            return set_last_error(cbErrorMemoryAllocation, "cbEventCreateWithFlags: " + error);
    }
    const cbError_t e = call("cbEventCreate", [&](gpu_call& g) -> cb_status {
        return g.t->event_create(g.instance, g.handle, &ev->handle);
    });
    if (e != cbSuccess) return e;
    std::lock_guard lock(objects_mutex_);
    *out = ev.get();
    events_.insert(ev.release());
    return cbSuccess;
}

cbError_t device_context::event_destroy(cbEvent_st* ev) {
    if (!ev || !owns(ev)) return set_last_error(cbErrorInvalidResourceHandle, "cbEventDestroy: unknown event");
    const cbError_t e = call("cbEventDestroy", [&](gpu_call& g) -> cb_status {
        return ev->handle ? g.t->event_destroy(g.instance, ev->handle) : CB_OK;
    });
    {
        std::lock_guard lock(objects_mutex_);
        events_.erase(ev);
    }
    delete ev;
    return e;
}

cbError_t device_context::event_record(cbEvent_st* ev, cbStream_st* s) {
    if (!ev || !owns(ev) || (s && !owns(s)))
        return set_last_error(cbErrorInvalidResourceHandle, "cbEventRecord: unknown event or stream");
    const cbError_t e = call("cbEventRecord", [&](gpu_call& g) -> cb_status {
        cb_gpu_stream* ps = nullptr;
        cb_status st = prepare_stream(g, s, ps);
        if (st == CB_OK) st = g.t->event_record(g.instance, ev->handle, ps);
        if (st == CB_OK) ev->recorded = true;
        return st;
    });
    return e != cbSuccess || !ev->shared ? e : record_interprocess(ev, s);
}

cbError_t device_context::event_synchronize(cbEvent_st* ev) {
    if (!ev || !owns(ev)) return set_last_error(cbErrorInvalidResourceHandle, "cbEventSynchronize: unknown event");
    if (cbError_t e = cbSuccess; waited_elsewhere(ev, "cbEventSynchronize", e)) return e;
    return call("cbEventSynchronize", [&](gpu_call& g) -> cb_status {
        const cb_status st = as_launch_failure(g.t->event_synchronize(g.instance, ev->handle));
        return st != CB_OK ? st : settle_finished_checks(g);
    });
}

cbError_t device_context::event_query(cbEvent_st* ev) {
    if (!ev || !owns(ev)) return set_last_error(cbErrorInvalidResourceHandle, "cbEventQuery: unknown event");
    if (const uint64_t latest = ev->shared ? ev->shared->latest() : 0; latest != 0 && latest != ev->ticket)
        return ev->shared->done(latest) ? cbSuccess : cbErrorNotReady;  // another process's record
    cb_status q = CB_OK;
    const cbError_t e = call("cbEventQuery", [&](gpu_call& g) -> cb_status {
        q = g.t->event_query(g.instance, ev->handle);
        if (q == CB_ERR_BUSY) return CB_OK;
        return q != CB_OK ? q : settle_finished_checks(g);
    });
    if (e == cbSuccess && q == CB_ERR_BUSY) return cbErrorNotReady;
    return e;
}

cbError_t device_context::event_elapsed(float* ms, cbEvent_st* a, cbEvent_st* b) {
    if (!ms) return set_last_error(cbErrorInvalidValue, "cbEventElapsedTime: NULL argument");
    if (!a || !b || !owns(a) || !owns(b))
        return set_last_error(cbErrorInvalidResourceHandle, "cbEventElapsedTime: unknown event");
    cb_status q = CB_OK;
    const cbError_t e = call("cbEventElapsedTime", [&](gpu_call& g) -> cb_status {
        q = g.t->event_elapsed_ms(g.instance, a->handle, b->handle, ms);
        return q == CB_ERR_BUSY ? CB_OK : q;
    });
    if (e == cbSuccess && q == CB_ERR_BUSY)
        return set_last_error(cbErrorNotReady, "cbEventElapsedTime: not yet complete");
    return e;
}

cbError_t device_context::synchronize() {
    const uint64_t abandons = dev_->work_abandons();
    const cbError_t e = call("cbDeviceSynchronize", [&](gpu_call& g) -> cb_status {
        const cb_status st = as_launch_failure(g.t->device_synchronize(g.instance, g.handle));
        const cb_status checked = settle_all_checks(g);
        return st != CB_OK ? st : checked;
    });
    if (e == cbSuccess) all_work_done_after(abandons);
    return e;
}

}  // namespace cudabridge::host

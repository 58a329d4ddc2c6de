// device_context: events shared with other processes (interprocess_event.hpp). A record here also
// takes a ticket on the event's shared page and queues a marker event behind it; one watcher
// thread polls the markers in order and marks each ticket done, so that a wait in any process
// knows when this process's device has passed the record. A wait for a record another process
// made blocks the caller until that process marks it done.
#include "runtime/device_context.hpp"

#include <chrono>

namespace cudabridge::host {

cbError_t device_context::record_interprocess(cbEvent_st* e, cbStream_st* s) {
    cbEvent_st* marker = nullptr;
    if (cbError_t r = event_create(&marker); r != cbSuccess) return r;
    if (cbError_t r = event_record(marker, s); r != cbSuccess) {
        event_destroy(marker);
        return r;
    }
    e->ticket = e->shared->take_ticket();
    std::lock_guard lock(watch_mutex_);
    watched_.push_back({marker, e->shared, e->ticket});
    if (!watcher_.joinable()) watcher_ = std::thread([this] { watch_records(); });
    watch_wake_.notify_one();
    return cbSuccess;
}

bool device_context::waited_elsewhere(cbEvent_st* e, const char* what, cbError_t& result) {
    if (!e->shared) return false;
    const uint64_t latest = e->shared->latest();
    if (latest == 0 || latest == e->ticket) return latest == 0;  // never recorded: nothing to wait for
    std::string why;
    result = e->shared->wait(latest, why);
    if (result != cbSuccess) set_last_error(result, std::string(what) + ": " + why);
    return true;
}

// Markers are polled, never waited on, so that closing the context never waits for a kernel.
void device_context::watch_records() {
    using namespace std::chrono;
    auto pause = microseconds(50);
    std::unique_lock lock(watch_mutex_);
    while (true) {
        watch_wake_.wait(lock, [&] { return watch_stop_ || !watched_.empty(); });
        if (watch_stop_) return;
        watched_record next = watched_.front();
        lock.unlock();
        const cbError_t q = event_query(next.marker);
        const bool passed = q != cbErrorNotReady;  // done, or failed: either way no longer pending
        if (passed) {
            event_destroy(next.marker);
            next.event->mark_done(next.ticket);
            pause = microseconds(50);
        } else {
            std::this_thread::sleep_for(pause);
            pause = std::min<microseconds>(pause * 2, milliseconds(2));
        }
        lock.lock();
        if (passed) watched_.pop_front();
    }
}

// Records still pending are marked done: their work is abandoned with the context, and another
// process must not wait for it forever.
void device_context::stop_watching() noexcept {
    {
        std::lock_guard lock(watch_mutex_);
        watch_stop_ = true;
        watch_wake_.notify_all();
    }
    if (watcher_.joinable()) watcher_.join();
    std::lock_guard lock(watch_mutex_);
    for (const watched_record& r : watched_) r.event->mark_done(r.ticket);
    watched_.clear();
    watch_stop_ = false;  // a later record (after cbDeviceReset) starts a new watcher
}

cbError_t device_context::ipc_get_event_handle(cbIpcEventHandle_t* handle, cbEvent_st* e) {
    if (!handle) return set_last_error(cbErrorInvalidValue, "cbIpcGetEventHandle: handle is NULL");
    if (!e || !owns(e)) return set_last_error(cbErrorInvalidResourceHandle, "cbIpcGetEventHandle: unknown event");
    if (!e->shared)
        return set_last_error(cbErrorInvalidResourceHandle,
                              "cbIpcGetEventHandle: the event was not created with cudaEventInterprocess");
    *handle = e->shared->handle();
    return cbSuccess;
}

cbError_t device_context::ipc_open_event_handle(cbEvent_st** out, const cbIpcEventHandle_t& handle) {
    if (!out) return set_last_error(cbErrorInvalidValue, "cbIpcOpenEventHandle: event is NULL");
    std::string error;
    cbError_t e = cbSuccess;
    auto shared = interprocess_event::open(handle, error, e);
    if (!shared) return set_last_error(e, "cbIpcOpenEventHandle: " + error);
    if (e = event_create(out); e != cbSuccess) return e;
    (*out)->shared = std::move(shared);
    return cbSuccess;
}

}  // namespace cudabridge::host

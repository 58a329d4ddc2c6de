// userspace_device: streams (the last fence each queued) and events (device timestamps).
#include "userspace/driver/userspace_device.hpp"

#include "userspace/driver/device_objects.hpp"
#include "userspace/driver/status_text.hpp"

namespace cudabridge::nv {

// ---- handles -----------------------------------------------------------------------------------

std::shared_ptr<userspace_stream> userspace_device::find_stream(userspace_stream* stream) const {
    std::lock_guard lock(objects_mutex_);
    auto it = streams_.find(stream);
    return it == streams_.end() ? nullptr : it->second;
}

std::shared_ptr<userspace_event> userspace_device::find_event(userspace_event* event) const {
    std::lock_guard lock(objects_mutex_);
    auto it = events_.find(event);
    return it == events_.end() ? nullptr : it->second;
}

cb_status userspace_device::stream_or_error(userspace_stream* handle, std::shared_ptr<userspace_stream>& out,
                                            std::string& error) const {
    out = nullptr;
    if (handle == nullptr) return CB_OK;  // the default stream
    out = find_stream(handle);
    if (out) return CB_OK;
    error = "not a stream of this device (destroyed already?)";
    return CB_ERR_INVALID_ARGUMENT;
}

// ---- streams -----------------------------------------------------------------------------------

cb_status userspace_device::stream_create(userspace_stream*& out, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto s = std::make_shared<userspace_stream>();
    std::lock_guard objects(objects_mutex_);
    streams_.emplace(s.get(), s);
    out = s.get();
    return CB_OK;
}

cb_status userspace_device::stream_destroy(userspace_stream* stream, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (phase_ == phase::closed) return CB_OK;  // closing released every stream
    std::lock_guard objects(objects_mutex_);
    if (stream == nullptr || streams_.erase(stream) == 0) {
        error = "stream_destroy: not a stream of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    return CB_OK;
}

cb_status userspace_device::stream_synchronize(userspace_stream* stream, std::string& error) {
    if (stream == nullptr) return device_synchronize(error);
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    return wait_and_collect(s->last_fence.load(), *s->errors, error);
}

cb_status userspace_device::stream_query(userspace_stream* stream, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    if (cb_status st = tracker_.refresh(error); st != CB_OK) return st;
    if (s) {
        if (cb_status st = s->errors->take(error); st != CB_OK) return st;
    }
    const uint64_t target = s ? s->last_fence.load() : tracker_.submitted();
    return tracker_.completed() >= target ? CB_OK : CB_ERR_BUSY;
}

cb_status userspace_device::device_synchronize(std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (cb_status st = tracker_.wait_fence(tracker_.submitted(), error); st != CB_OK) return st;
    if (cb_status st = tracker_.take_unclaimed(error); st != CB_OK) return st;
    // A stream's failure stays with the stream (its synchronize takes it) but is reported here too.
    std::lock_guard objects(objects_mutex_);
    for (const auto& [handle, s] : streams_)
        if (cb_status st = s->errors->peek(error); st != CB_OK) return st;
    return CB_OK;
}

cb_status userspace_device::stream_wait_event(userspace_stream* stream, userspace_event* event, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    if (!find_event(event)) {
        error = "stream_wait_event: not an event of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    // Nothing to queue: every stream shares the one ring and the device runs it in order, so a
    // command queued after this call starts only after every command queued before it — the
    // event's last record and the work before that record included. A device with several rings
    // would queue a wait-for-fence command here.
    return CB_OK;
}

// ---- events ------------------------------------------------------------------------------------

cb_status userspace_device::event_create(userspace_event*& out, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto e = std::make_shared<userspace_event>();
    if (cb_status st = stamps_.acquire(e->stamp, error); st != CB_OK) return st;
    std::lock_guard objects(objects_mutex_);
    events_.emplace(e.get(), e);
    out = e.get();
    return CB_OK;
}

cb_status userspace_device::event_destroy(userspace_event* event, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (phase_ == phase::closed) return CB_OK;
    std::shared_ptr<userspace_event> e;
    {
        std::lock_guard objects(objects_mutex_);
        auto it = events_.find(event);
        if (it == events_.end()) {
            error = "event_destroy: not an event of this device";
            return CB_ERR_INVALID_ARGUMENT;
        }
        e = std::move(it->second);
        events_.erase(it);
    }
    // The word is reused only once the device can no longer write it.
    if (e->recorded && tracker_.completed() < e->fence) return CB_OK;  // left to the slab
    stamps_.give_back(e->stamp);
    return CB_OK;
}

cb_status userspace_device::event_record(userspace_event* event, userspace_stream* stream, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto e = find_event(event);
    if (!e) {
        error = "event_record: not an event of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    hw::command cmd{};
    cmd.op = hw::opcode::timestamp;
    cmd.a = e->stamp.iova;
    uint64_t fence = 0;
    if (cb_status st = ring_.submit(cmd, s ? s->errors : nullptr, "timestamp", fence, error); st != CB_OK) return st;
    if (s) raise_to(s->last_fence, fence);
    std::lock_guard objects(objects_mutex_);
    e->fence = fence;
    e->recorded = true;
    return CB_OK;
}

cb_status userspace_device::event_synchronize(userspace_event* event, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto e = find_event(event);
    if (!e) {
        error = "event_synchronize: not an event of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    uint64_t fence = 0;
    {
        std::lock_guard objects(objects_mutex_);
        fence = e->recorded ? e->fence : 0;
    }
    return tracker_.wait_fence(fence, error);
}

cb_status userspace_device::event_query(userspace_event* event, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto e = find_event(event);
    if (!e) {
        error = "event_query: not an event of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    uint64_t fence = 0;
    {
        std::lock_guard objects(objects_mutex_);
        fence = e->recorded ? e->fence : 0;
    }
    if (cb_status st = tracker_.refresh(error); st != CB_OK) return st;
    return tracker_.completed() >= fence ? CB_OK : CB_ERR_BUSY;
}

cb_status userspace_device::event_elapsed_ms(userspace_event* start, userspace_event* end, float& out_ms,
                                             std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto a = find_event(start);
    auto b = find_event(end);
    if (!a || !b) {
        error = "event_elapsed_ms: not an event of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    uint64_t fence_a = 0, fence_b = 0;
    {
        std::lock_guard objects(objects_mutex_);
        if (!a->recorded || !b->recorded) {
            error = "event_elapsed_ms: both events must have been recorded";
            return CB_ERR_INVALID_ARGUMENT;
        }
        fence_a = a->fence;
        fence_b = b->fence;
    }
    if (cb_status st = tracker_.refresh(error); st != CB_OK) return st;
    if (tracker_.completed() < std::max(fence_a, fence_b)) {
        error = "event_elapsed_ms: an event has not completed yet";
        return CB_ERR_BUSY;
    }
    const auto t0 = static_cast<int64_t>(timestamp_slots::read(a->stamp));
    const auto t1 = static_cast<int64_t>(timestamp_slots::read(b->stamp));
    out_ms = static_cast<float>(static_cast<double>(t1 - t0) / 1e6);
    return CB_OK;
}

}  // namespace cudabridge::nv

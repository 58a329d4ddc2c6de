// The safety supervisor: a thread per connected device that samples its health every
// heartbeat_interval_ms, asks the safety policy what to do, does it, records it, and tells the
// registered callbacks.
#include "connection/device_impl.hpp"

#include <cb_log.h>

#include <cstdio>

namespace cudabridge::host {
namespace {

constexpr size_t history_length = 64;
// A fault that comes and goes (a flaky cable) must climb the ladder, not start it again after
// every reset: the attempts are forgotten only after this many healthy samples in a row (5 s at
// the default one-second interval).
constexpr uint32_t settled_samples = 5;
// Between samples the loop looks this often at what other processes published: a reset made in
// another program stops this one's running kernels within 100 ms, whatever the sample interval.
constexpr auto shared_watch_period = std::chrono::milliseconds(40);

}  // namespace

const char* action_name(cb_safety_action a) noexcept {
    switch (a) {
    case CB_ACTION_NONE:
        return "none";
    case CB_ACTION_WARN:
        return "warn";
    case CB_ACTION_THROTTLE:
        return "throttle";
    case CB_ACTION_SOFT_RESET:
        return "soft_reset";
    case CB_ACTION_HARD_RESET:
        return "hard_reset";
    case CB_ACTION_RECONNECT:
        return "reconnect";
    case CB_ACTION_EMERGENCY_STOP:
        return "emergency_stop";
    case CB_ACTION_MARK_FAILED:
        return "mark_failed";
    case CB_ACTION_RESUME:
        return "resume";
    default:
        return "unknown";
    }
}

namespace {

std::string sample_json(const cb_health_sample& h) {
    char b[512];
    std::snprintf(b, sizeof b,
                  "{\"temperature_c\":%.1f,\"power_w\":%.1f,\"error_rate\":%.6f,\"heartbeat_age_ms\":%llu,"
                  "\"oldest_pending_ms\":%llu,\"stalled_ms\":%lld,\"kernel_running_ms\":%lld,\"link_up\":%s,"
                  "\"device_lost\":%s,\"integrity_failure\":%s}",
                  h.temperature_c, h.power_w, h.error_rate, static_cast<unsigned long long>(h.heartbeat_age_ms),
                  static_cast<unsigned long long>(h.oldest_pending_ms),
                  h.stalled_ms == UINT64_MAX ? -1LL : static_cast<long long>(h.stalled_ms),
                  h.kernel_running_ms == UINT64_MAX ? -1LL : static_cast<long long>(h.kernel_running_ms),
                  h.link_up ? "true" : "false", h.device_lost ? "true" : "false",
                  h.integrity_failure ? "true" : "false");
    return b;
}

}  // namespace

void device_impl::start_supervisor() {
    std::lock_guard lock(thread_mutex_);
    if (thread_.joinable()) return;
    stop_ = false;
    thread_ = std::thread([this] { supervisor_loop(); });
}

void device_impl::stop_supervisor() {
    {
        std::lock_guard lock(thread_mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void device_impl::supervisor_loop() {
    for (;;) {
        const auto interval = std::chrono::milliseconds(
            static_cast<int64_t>(std::max(10.0, s.safety_number("heartbeat_interval_ms", 1000))));
        const auto sample_at = std::chrono::steady_clock::now() + interval;
        for (;;) {
            const auto left = sample_at - std::chrono::steady_clock::now();
            if (left <= std::chrono::steady_clock::duration::zero()) break;
            std::unique_lock lock(thread_mutex_);
            if (wake_.wait_for(lock, std::min<std::chrono::steady_clock::duration>(left, shared_watch_period),
                               [this] { return stop_; }))
                return;
            lock.unlock();
            if (reset_published_elsewhere()) follow_published();
        }
        supervise_once();
    }
}

// Two atomic loads of the shared connection file: cheap enough to look every few tens of ms.
bool device_impl::reset_published_elsewhere() const noexcept {
    return shared->resets() != seen_resets.load(std::memory_order_acquire) ||
           (!observer && shared->engine_resets() != seen_engine_resets.load(std::memory_order_acquire));
}

// Between samples: another process's reset ends this process's waits and running kernels at once
// (its work went with the reset). Reopening the GPU and the rest of following it waits for the
// next sample: right after the reset this process's link may not have seen its end yet.
void device_impl::follow_published() {
    std::lock_guard serial(supervise_mutex_);
    const device_state now = state.load();
    if (now == device_state::disconnecting || now == device_state::disconnected) return;
    notice_reset_elsewhere();
    if (view_stale.load(std::memory_order_acquire) && !observer) stop_local_work();
    follow_engine_reset_elsewhere();
}

void device_impl::supervise_once() {
    std::lock_guard serial(supervise_mutex_);
    const device_state now = state.load();
    if (now == device_state::disconnecting || now == device_state::disconnected) return;
    if (failed_ && !shared->marked_failed()) take_manual_reset_elsewhere();
    notice_reset_elsewhere();
    if (view_stale.load(std::memory_order_acquire)) follow_reset_elsewhere();
    follow_engine_reset_elsewhere();
    const cb_health_sample sample = take_sample();
    history_.push_back(sample);
    if (history_.size() > history_length) history_.pop_front();
    if (observer) {  // it looks; the processes that use the device decide and act
        const bool reconnected_elsewhere =
            shared->state() == shared_link_state::connected && !shared->still_connected(epoch);
        if (sample.device_lost || reconnected_elsewhere) look_again();
        publish_health();
        return;
    }
    std::vector<cb_health_sample> samples(history_.begin(), history_.end());
    cb_health_history hist{};
    hist.struct_size = sizeof hist;
    hist.recovery_attempts = recovery_attempts_;
    hist.samples = samples.data();
    hist.sample_count = samples.size();
    hist.last_recovery_ns = last_recovery_ns_;
    // Stopped here, or by another process's policy: this policy may resume it.
    hist.emergency_stopped = now == device_state::emergency_stop || shared->emergency_stopped();
    hist.failed = failed_ || shared->marked_failed();  // marked here, or by another process's policy
    cb_safety_decision d{};
    d.struct_size = sizeof d;
    if (s.safety()->evaluate(s.safety_instance(), &hist, &d) != CB_OK) {
        s.log_line(CB_LOG_ERROR, CB_LOG_CAT_EGPU, "the safety policy could not evaluate: " + core::last_error(), id);
        return;
    }
    act(d);
    publish_health();
}

// Another process reset the engines (a soft reset): on a GPU that abandons every process's queued
// work, running kernels included; here each process stops its own.
void device_impl::follow_engine_reset_elsewhere() {
    const uint64_t now = shared->engine_resets();
    if (seen_engine_resets.exchange(now) == now || observer) return;  // an observer queues no work
    stop_local_work();
    record(CB_SEVERITY_WARNING, "safety.reset_elsewhere",
           "another process reset the engines of " + name + ": this process's queued work was abandoned");
}

void device_impl::act(const cb_safety_decision& d) {
    const std::string reason = d.reason;
    const std::string data = sample_json(history_.back());
    if (d.action != CB_ACTION_NONE) healthy_streak_ = 0;
    switch (d.action) {
    case CB_ACTION_NONE:
        if (++healthy_streak_ >= settled_samples && recovery_attempts_ > 0 && state.load() == device_state::connected) {
            record(CB_SEVERITY_INFO, "safety.recovered",
                   "healthy again after " + std::to_string(recovery_attempts_) + " recovery attempt(s)", data);
            recovery_attempts_ = 0;
        }
        return;
    case CB_ACTION_WARN:
    case CB_ACTION_THROTTLE:
        if (reason != last_reason_)
            record(CB_SEVERITY_WARNING, std::string("safety.") + action_name(d.action), reason, data);
        last_action_ = action_name(d.action);
        last_reason_ = reason;
        notify({id, state.load(), CB_OK, std::string("safety.") + action_name(d.action), reason});
        return;
    case CB_ACTION_EMERGENCY_STOP:
        if (state.load() == device_state::emergency_stop) return;
        run_recovery(d.action, reason, 0);
        return;
    case CB_ACTION_RESUME:
    case CB_ACTION_MARK_FAILED:
    case CB_ACTION_SOFT_RESET:
    case CB_ACTION_HARD_RESET:
    case CB_ACTION_RECONNECT:
        // Marked once for the device, whichever process marked it.
        if (d.action == CB_ACTION_MARK_FAILED && (failed_ || shared->marked_failed())) return;
        run_recovery(d.action, reason, d.delay_ms);
        return;
    default:
        s.log_line(CB_LOG_WARN, CB_LOG_CAT_EGPU,
                   "the safety policy asked for an unknown action " + std::to_string(d.action) + ": ignored", id);
    }
}

void device_impl::publish_health() {
    health_snapshot h;
    if (!history_.empty()) h.sample = history_.back();
    h.recovery_attempts = recovery_attempts_;
    h.recoveries = recoveries_;
    h.last_action = last_action_;
    h.last_reason = last_reason_;
    std::lock_guard lock(health_mutex_);
    published_ = std::move(h);
}

health_snapshot device_impl::health() const {
    std::lock_guard lock(health_mutex_);
    return published_;
}

}  // namespace cudabridge::host

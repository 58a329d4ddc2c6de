// Carrying out what the policy decided: the recovery rungs (soft reset, drain and hard reset,
// reconnect), emergency stop and resume, marking the device failed, and the manual reset that
// clears that mark. Each action is an event with its outcome and the time it took.
#include "connection/device_impl.hpp"

#include <cb_log.h>

#include <cstdio>
#include <future>

namespace cudabridge::host {
namespace {

std::string outcome_json(const char* action, bool ok, uint64_t duration_ns, uint32_t attempt) {
    char b[160];
    std::snprintf(b, sizeof b, "{\"action\":\"%s\",\"ok\":%s,\"duration_ms\":%.3f,\"attempt\":%u}", action,
                  ok ? "true" : "false", static_cast<double>(duration_ns) / 1e6, attempt);
    return b;
}

}  // namespace

void device_impl::run_recovery(cb_safety_action action, const std::string& reason, uint32_t delay_ms) {
    if (delay_ms) {
        std::unique_lock lock(thread_mutex_);
        if (wake_.wait_for(lock, std::chrono::milliseconds(delay_ms), [this] { return stop_; })) return;
    }
    const char* action_text = action_name(action);
    const std::string kind = std::string("safety.") + action_text;
    const bool is_reset =
        action == CB_ACTION_SOFT_RESET || action == CB_ACTION_HARD_RESET || action == CB_ACTION_RECONNECT;
    if (is_reset) {
        // Named before anything is reset: a call failing for it says who reset the device and why
        // (memory_dropped, abandoned_by_reset read the published health).
        last_action_ = action_text;
        last_reason_ = reason;
        publish_health();
        // From here new calls wait for the outcome instead of queueing work the reset would drop,
        // and a call whose work the reset abandons is told so (cbErrorDeviceReset).
        device_state expected = device_state::connected;
        if (state.compare_exchange_strong(expected, device_state::recovering))
            notify({id, device_state::recovering, CB_OK, kind, reason});
    }
    // Every reset abandons what is queued: the waits on it must end before the exclusive gate is
    // taken, or it would wait for work that may never finish (a kernel that never ends, a ring
    // the device turned off).
    if (is_reset && handle && action == CB_ACTION_HARD_RESET) {
        // Drain first, bounded: a hung engine will not finish, and the reset aborts what is left.
        auto drained = std::async(std::launch::async, [this] {
            std::shared_lock lock(gate);
            return handle ? s.gpu()->device_synchronize(s.gpu_instance(), handle) : CB_OK;
        });
        if (drained.wait_for(std::chrono::milliseconds(2000)) != std::future_status::ready) stop_local_work();
        drained.wait();
    } else if (is_reset && handle && action == CB_ACTION_RECONNECT) {
        stop_local_work();
    }
    const uint64_t t0 = monotonic_ns();
    std::string error;
    cb_status st = CB_OK;
    // A soft reset is itself what ends the waits: made on the gate's shared side, once.
    bool soft_done = false;
    if (is_reset && action == CB_ACTION_SOFT_RESET) {
        std::shared_lock lock(gate);
        if (handle) {
            st = soft_reset(error);
            soft_done = true;
        }
    }
    device_state after = device_state::connected;
    {
        std::unique_lock lock(gate);  // calls in flight finish first; new ones wait for us
        const device_state before = state.load();
        if (before == device_state::disconnecting || before == device_state::disconnected) return;
        if (is_reset && before != device_state::recovering) {
            state.store(device_state::recovering);
            notify({id, device_state::recovering, CB_OK, kind, reason});
        }
        switch (action) {
        case CB_ACTION_SOFT_RESET:
            if (!soft_done) st = handle ? soft_reset(error) : reconnect(error);
            break;
        case CB_ACTION_HARD_RESET:
            st = handle ? hard_reset(error) : reconnect(error);
            break;
        case CB_ACTION_RECONNECT:
            st = reconnect(error);
            break;
        case CB_ACTION_EMERGENCY_STOP:
            // Stop the work so the GPU idles and cools; nothing new starts until a resume.
            if (handle) soft_reset(error);
            after = device_state::emergency_stop;
            break;
        case CB_ACTION_RESUME:
            after = device_state::connected;
            break;
        case CB_ACTION_MARK_FAILED:
            failed_ = true;
            after = device_state::failed;
            break;
        default:
            return;
        }
        if (is_reset) {
            ++recovery_attempts_;
            last_recovery_ns_ = monotonic_ns();
            if (st == CB_OK) {
                ++recoveries_;
                link_down.store(false, std::memory_order_release);
            }
            // A failed rung leaves the device refusing work until the next one (or failed).
            after = st == CB_OK ? device_state::connected : device_state::lost;
        }
        // The new state is in place before the gate opens: a call waiting at it (a synchronize
        // after work the stop abandoned) is refused for the stop, not told of the lost work.
        state.store(after, std::memory_order_release);
        if (after != device_state::connected) set_refusal(reason);
    }
    const uint64_t took = monotonic_ns() - t0;
    const bool ok = st == CB_OK;
    last_action_ = action_text;
    last_reason_ = reason;
    std::string message = reason;
    if (is_reset) message += ok ? " -> done" : " -> failed: " + error;
    const int severity = action == CB_ACTION_EMERGENCY_STOP || action == CB_ACTION_MARK_FAILED ? CB_SEVERITY_CRITICAL
                         : ok                                                                  ? CB_SEVERITY_WARNING
                                                                                               : CB_SEVERITY_ERROR;
    record(severity, kind, message, outcome_json(action_text, ok, took, recovery_attempts_));
    // Every process holds new work while stopped, and takes it again at the resume.
    if (action == CB_ACTION_EMERGENCY_STOP) shared->publish_emergency_stop(true);
    if (action == CB_ACTION_RESUME) shared->publish_emergency_stop(false);
    if (action == CB_ACTION_MARK_FAILED) shared->publish_failed(true);  // refused everywhere
    const cb_status reported = action == CB_ACTION_EMERGENCY_STOP ? CB_ERR_THERMAL_LIMIT
                               : action == CB_ACTION_MARK_FAILED  ? CB_ERR_DEVICE_LOST
                                                                  : st;
    set_state(after, reported, kind, message);
}

cb_status device_impl::manual_reset(bool hard) {
    std::lock_guard serial(supervise_mutex_);
    const uint64_t t0 = monotonic_ns();
    std::string error;
    cb_status st = CB_OK;
    {
        std::unique_lock lock(gate);
        const device_state before = state.load();
        if (before == device_state::disconnecting || before == device_state::disconnected) {
            core::set_last_error("device " + id + " is " + state_name(before));
            return CB_ERR_NO_DEVICE;
        }
        state.store(device_state::recovering);
        if (handle && !hard) {
            st = soft_reset(error);
        } else {
            st = handle ? hard_reset(error) : CB_ERR_DEVICE_LOST;
            if (st != CB_OK) st = reconnect(error);
        }
        failed_ = false;
        recovery_attempts_ = 0;
        if (st == CB_OK) link_down.store(false, std::memory_order_release);
        history_.clear();
        shared->publish_emergency_stop(false);  // a manual reset ends an emergency stop everywhere
        shared->publish_failed(false);          // and a failed mark
        last_action_ = hard ? "manual hard reset" : "manual soft reset";
        last_reason_.clear();
        publish_health();
    }
    const uint64_t took = monotonic_ns() - t0;
    const std::string message = std::string("manual ") + (hard ? "hard" : "soft") + " reset" +
                                (st == CB_OK ? ": the device is back" : " failed: " + error);
    record(st == CB_OK ? CB_SEVERITY_INFO : CB_SEVERITY_ERROR, "safety.manual_reset", message,
           outcome_json(hard ? "hard_reset" : "soft_reset", st == CB_OK, took, 0));
    set_state(st == CB_OK ? device_state::connected : device_state::lost, st, "safety.manual_reset", message);
    if (st != CB_OK) core::set_last_error(message);
    return st;
}

void device_impl::follow_reset_elsewhere() {
    std::string error;
    // This process's waits end first (its work went with the reset), or the exclusive gate would
    // wait for work that may never finish.
    stop_local_work();
    {
        std::unique_lock lock(gate);
        if (!view_stale.exchange(false)) return;
        release_runtime(false);
        if (reopen_gpu(error) == CB_OK) {
            seen_again();  // an observer that saw it lost: a process using it recovered it
            return;
        }
    }
    set_state(device_state::lost, CB_ERR_DEVICE_LOST, "safety.reset_elsewhere",
              "another process reset the device, and its GPU does not answer here: " + error);
}

void device_impl::take_manual_reset_elsewhere() {
    std::string error;
    cb_status st = CB_OK;
    {
        std::unique_lock lock(gate);
        release_runtime(false);
        memory_epoch.fetch_add(1);
        st = reopen_gpu(error);
        failed_ = false;
        recovery_attempts_ = 0;
        history_.clear();
        last_action_ = "manual reset in another process";
        last_reason_.clear();
        publish_health();
    }
    if (st != CB_OK)
        error = "a manual reset in another process cleared the failed mark, but the GPU does not answer here: " + error;
    set_state(st == CB_OK ? device_state::connected : device_state::lost, st, "safety.manual_reset",
              st == CB_OK ? "a manual reset in another process cleared the failed mark" : error);
}

cb_status device::manual_reset(bool hard) { return impl_->manual_reset(hard); }

}  // namespace cudabridge::host

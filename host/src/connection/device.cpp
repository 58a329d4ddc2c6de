// host::device: the public face of device_impl, the work gate, state changes and callbacks.
#include "connection/device_impl.hpp"
#include "connection/process_list.hpp"

#include <cudabridge/core/store.hpp>

#include <cb_log.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace cudabridge::host {

uint64_t monotonic_ns() noexcept {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

const char* state_name(device_state s) noexcept {
    switch (s) {
    case device_state::disconnected:
        return "disconnected";
    case device_state::detecting:
        return "detecting";
    case device_state::checking:
        return "checking";
    case device_state::authorizing:
        return "authorizing";
    case device_state::tunneling:
        return "tunneling";
    case device_state::initializing:
        return "initializing";
    case device_state::connected:
        return "connected";
    case device_state::recovering:
        return "recovering";
    case device_state::emergency_stop:
        return "emergency-stop";
    case device_state::failed:
        return "failed";
    case device_state::disconnecting:
        return "disconnecting";
    case device_state::lost:
        return "lost";
    }
    return "unknown";
}

void step_log::done(const std::string& name, uint64_t started_ns, bool ok, const std::string& detail) {
    step_record r{name, ok, monotonic_ns() - started_ns, detail};
    steps_.push_back(r);
    if (silent_) {
        if (on_step_) on_step_(r);
        return;
    }
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.1f ms", static_cast<double>(r.duration_ns) / 1e6);
    const std::string text =
        prefix_ + " " + name + ": " + (ok ? "ok" : "FAILED") + " (" + ms + ")" + (detail.empty() ? "" : ": " + detail);
    s_.log_line(ok ? CB_LOG_INFO : CB_LOG_ERROR, CB_LOG_CAT_EGPU, text, device_);
    char data[96];
    std::snprintf(data, sizeof data, "{\"duration_ms\":%.3f,\"ok\":%s}", static_cast<double>(r.duration_ns) / 1e6,
                  ok ? "true" : "false");
    s_.record_event(device_, "EGPU", ok ? CB_SEVERITY_INFO : CB_SEVERITY_ERROR, prefix_ + "." + name, text, data);
    if (on_step_) on_step_(r);
}

// ---- the gate --------------------------------------------------------------------------------

cb_status device_impl::enter(device::ticket& out) const {
    if (link_down.load(std::memory_order_acquire)) {
        core::set_last_error("the link to device " + id +
                             " is down: work on it is lost; the safety supervisor reconnects it when the link returns");
        return CB_ERR_LINK_DOWN;
    }
    // A recovery under way ends within its drain and reset: wait for its outcome (bounded), so
    // the call runs on the recovered device or hears what the reset did to its context.
    for (int waited_ms = 0; state.load(std::memory_order_acquire) == device_state::recovering && waited_ms < 60000;
         waited_ms += 5)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    out.lock_ = std::shared_lock(gate);
    const device_state st = state.load(std::memory_order_acquire);
    const bool live = st == device_state::connected && shared->still_connected(epoch);
    if (live && !shared->emergency_stopped() && !shared->marked_failed() && handle != nullptr) {
        notice_reset_elsewhere();
        out.handle_ = handle;
        return CB_OK;
    }
    out.lock_ = {};
    if (live && shared->marked_failed()) {
        core::set_last_error("device " + id +
                             " was marked failed by a safety policy (its reason: 'cudabridge-cli history --kind "
                             "safety.mark_failed'): work is refused until 'cudabridge-cli reset'");
        return CB_ERR_DEVICE_LOST;
    }
    if (live && handle == nullptr) {  // an observer's look found the GPU not answering
        core::set_last_error("the GPU of device " + id + " does not answer; it is looked at again at the next reading");
        return CB_ERR_DEVICE_LOST;
    }
    if (live) {  // stopped by the safety policy of another process
        core::set_last_error("device " + id +
                             " is in an emergency stop (recorded by another process's safety policy): "
                             "new work is refused until the policy resumes it or 'cudabridge-cli reset'");
        return CB_ERR_THERMAL_LIMIT;
    }
    cb_status status = CB_ERR_DEVICE_LOST;
    std::string reason = refusal();
    switch (st) {
    case device_state::connected:  // the shared epoch moved on: another process disconnected it
        reason = "device " + id + " was disconnected by another process (or reconnected under a new session)";
        break;
    case device_state::emergency_stop:
        status = CB_ERR_THERMAL_LIMIT;
        break;
    case device_state::failed:
        status = CB_ERR_DEVICE_LOST;
        break;
    case device_state::recovering:
        status = CB_ERR_BUSY;
        break;
    default:
        break;
    }
    if (reason.empty()) reason = "device " + id + " is " + state_name(st);
    core::set_last_error(reason);
    return status;
}

void device_impl::notice_reset_elsewhere() const noexcept {
    const uint64_t now = shared->resets();
    uint64_t seen = seen_resets.load(std::memory_order_acquire);
    if (now == seen || !seen_resets.compare_exchange_strong(seen, now)) return;
    memory_epoch.fetch_add(1);
    view_stale.store(true, std::memory_order_release);
}

void device_impl::set_refusal(std::string why) {
    std::lock_guard lock(refusal_mutex_);
    refusal_ = std::move(why);
}

std::string device_impl::refusal() const {
    std::lock_guard lock(refusal_mutex_);
    return refusal_;
}

void device_impl::set_state(device_state next, cb_status status, const std::string& kind, const std::string& message) {
    state.store(next, std::memory_order_release);
    if (next != device_state::connected) set_refusal(message);
    notify({id, next, status, kind, message});
}

// ---- events ----------------------------------------------------------------------------------

int device_impl::add_callback(device_event_callback cb) {
    std::lock_guard lock(callbacks_mutex_);
    const int n = next_callback_++;
    callbacks_[n] = std::move(cb);
    return n;
}

void device_impl::remove_callback(int n) {
    std::lock_guard lock(callbacks_mutex_);
    callbacks_.erase(n);
}

void device_impl::notify(const device_event& e) {
    std::vector<device_event_callback> copy;
    {
        std::lock_guard lock(callbacks_mutex_);
        for (const auto& [n, cb] : callbacks_) copy.push_back(cb);
    }
    for (const auto& cb : copy) {
        try {
            cb(e);
        } catch (...) {
            // A callback's failure is its own; the device goes on.
        }
    }
}

void device_impl::record(int severity, const std::string& kind, const std::string& message, const std::string& data) {
    const cb_log_level level = severity >= CB_SEVERITY_ERROR     ? CB_LOG_ERROR
                               : severity == CB_SEVERITY_WARNING ? CB_LOG_WARN
                                                                 : CB_LOG_INFO;
    s.log_line(level, CB_LOG_CAT_EGPU, message, id);
    s.record_event(id, "EGPU", severity, kind, message, data);
}

// ---- host::device ----------------------------------------------------------------------------

device::device(std::unique_ptr<device_impl> impl) : impl_(std::move(impl)) {}
device::~device() = default;

const std::string& device::id() const noexcept { return impl_->id; }
const std::string& device::function_id() const noexcept { return impl_->function_id; }
const std::string& device::name() const noexcept { return impl_->name; }
const cb_gpu_properties& device::properties() const noexcept { return impl_->properties; }
const cb_endpoint_info& device::enclosure() const noexcept { return impl_->enclosure; }
device_state device::state() const noexcept { return impl_->state.load(); }
bool device::held_by_safety_policy() const noexcept {
    return impl_->shared->marked_failed() || impl_->shared->emergency_stopped();
}
bool device::attached() const noexcept { return impl_->attached; }
// An observer follows the connection's session: a process using the device may have connected it
// again since this one joined (its readings count that session's events).
int64_t device::session_id() const noexcept {
    if (impl_->observer && impl_->shared) {
        const int64_t now = impl_->shared->session_id();
        if (now > 0) return now;
    }
    return impl_->session_id;
}
const std::vector<step_record>& device::connect_steps() const noexcept { return impl_->steps; }
health_snapshot device::health() const { return impl_->health(); }
cb_status device::enter(ticket& out) const { return impl_->enter(out); }
uint64_t device::memory_epoch() const noexcept { return impl_->memory_epoch.load(std::memory_order_acquire); }
uint64_t device::work_abandons() const noexcept { return impl_->work_abandons.load(std::memory_order_acquire); }
const cb_gpu_table* device::gpu() const noexcept { return impl_->s.gpu(); }
void* device::gpu_instance() const noexcept { return impl_->s.gpu_instance(); }
int device::add_callback(device_event_callback cb) { return impl_->add_callback(std::move(cb)); }
void device::remove_callback(int n) { impl_->remove_callback(n); }
void device::supervise_once() { impl_->supervise_once(); }
disconnect_report device::disconnect(const disconnect_options& o) { return impl_->disconnect(o); }

void device::set_release_hook(std::function<void(bool)> hook) {
    std::unique_lock lock(impl_->gate);
    impl_->release_hook = std::move(hook);
}

void device::set_pending_probe(std::function<pending_work()> probe) {
    std::unique_lock lock(impl_->gate);
    impl_->pending_probe = std::move(probe);
}

void device::report_dma_refusal(const std::string& what) {
    // One event per sample interval: a loop of refused copies must not flood the history.
    if (impl_->dma_refusals.fetch_add(1) == 0)
        impl_->record(CB_SEVERITY_ERROR, "dma.refused", "the IOMMU refused a DMA mapping: " + what);
}

void device::report_module_refused(const std::string& why) {
    impl_->record(CB_SEVERITY_WARNING, "module.refused", "a module's code cannot run on this GPU: " + why);
}

void device::report_integrity_failure(const std::string& what) {
    impl_->integrity_failures.fetch_add(1);
    impl_->record(CB_SEVERITY_ERROR, "integrity.mismatch", "end-to-end check failed: " + what);
}

cb_status device::read_telemetry(cb_gpu_telemetry& out) const {
    ticket t;
    if (cb_status st = enter(t); st != CB_OK) return st;
    out = {};
    out.struct_size = sizeof out;
    return gpu()->get_telemetry(gpu_instance(), t.handle(), &out);
}

cb_status device::read_processes(std::vector<cb_gpu_process>& out) const {
    ticket t;
    if (cb_status st = enter(t); st != CB_OK) return st;
    return list_processes(gpu(), gpu_instance(), t.handle(), out);
}

cb_link_status device::link_status() const {
    cb_link_status st{};
    st.struct_size = sizeof st;
    std::shared_lock lock(impl_->gate);
    if (impl_->link) impl_->s.transport()->link_status(impl_->s.transport_instance(), impl_->link, &st);
    return st;
}

}  // namespace cudabridge::host

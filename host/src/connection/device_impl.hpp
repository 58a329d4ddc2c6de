// The inside of host::device: what one connected eGPU holds in this process, and the pieces
// the connection sequence, the supervisor and the disconnect share.
#pragma once

#include <cudabridge/host/device.hpp>
#include <cudabridge/host/session.hpp>

#include "connection/shared_connection_state.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace cudabridge::host {

// Runs a step: times it, logs it, records its event, and adds it to `steps`.
class step_log {
public:
    step_log(session& s, std::string device, std::string prefix, std::vector<step_record>& steps,
             std::function<void(const step_record&)> on_step)
        : s_(s), device_(std::move(device)), prefix_(std::move(prefix)), steps_(steps), on_step_(std::move(on_step)) {}
    void set_device(std::string device) { device_ = std::move(device); }
    // Steps are still kept (and reported to on_step), but neither logged nor recorded.
    void silence() { silent_ = true; }
    // Records a finished step.
    void done(const std::string& name, uint64_t started_ns, bool ok, const std::string& detail);

private:
    session& s_;
    std::string device_;
    std::string prefix_;
    std::vector<step_record>& steps_;
    std::function<void(const step_record&)> on_step_;
    bool silent_ = false;
};

uint64_t monotonic_ns() noexcept;
const char* action_name(cb_safety_action a) noexcept;  // "soft_reset", ...

class device_impl {
public:
    explicit device_impl(session& owner) : s(owner) {}
    ~device_impl();

    // ---- identity and handles (set by connect, changed only under the exclusive gate) --------
    session& s;
    std::string id, function_id, name;
    cb_endpoint_info enclosure{}, function{};
    cb_gpu_properties properties{};
    std::string profile_json;
    bool attached = false;
    // Joined only to look (status, info, query, monitor): no supervisor thread, no policy
    // decisions, no events; supervise_once just takes a fresh sample (and opens the GPU again
    // after it met the device lost, see look_again).
    bool observer = false;
    int64_t session_id = 0;
    std::vector<step_record> steps;
    cb_link* link = nullptr;
    cb_gpu_device* handle = nullptr;
    std::vector<uint8_t> key;  // the secure-connect key when the domain is secure
    std::unique_ptr<shared_connection_state> shared;
    uint64_t epoch = 0;

    // ---- the gate ----------------------------------------------------------------------------
    mutable std::shared_mutex gate;
    std::atomic<device_state> state{device_state::disconnected};
    mutable std::atomic<uint64_t> memory_epoch{1};
    // Resets of the engines (soft, hard, another process's) that abandoned this process's queued
    // work: a call whose work failed while this moved failed because of a reset.
    std::atomic<uint64_t> work_abandons{0};
    // Resets of the device (shared->resets()) this process has taken in. One made by another
    // process drops this process's memory at its next call (memory_epoch moves: the runtime
    // answers cbErrorDeviceReset) and leaves its GPU view stale until it is opened again.
    mutable std::atomic<uint64_t> seen_resets{0};
    mutable std::atomic<bool> view_stale{false};
    void notice_reset_elsewhere() const noexcept;
    // Engine (soft) resets of the device this process has taken in: one made by another process
    // abandons this process's queued work too, as on a GPU whose engines were reset.
    std::atomic<uint64_t> seen_engine_resets{0};
    // Stops this process's work on the device now: the GPU family abandons the queue, so waits on
    // it end at once and a running kernel stops at its next poll. Takes the gate shared only, so
    // it reaches a process whose threads are waiting at the gate's shared side.
    void stop_local_work() noexcept;
    void follow_engine_reset_elsewhere();  // supervisor: an engine reset made by another process
    // The last health sample found the link down: calls fail at once with CB_ERR_LINK_DOWN
    // instead of waiting at the gate for the reconnect (their work is gone with the link).
    std::atomic<bool> link_down{false};
    cb_status enter(device::ticket& out) const;
    void set_state(device_state next, cb_status status, const std::string& kind, const std::string& message);
    void set_refusal(std::string why);
    std::string refusal() const;

    // ---- events --------------------------------------------------------------------------------
    int add_callback(device_event_callback cb);
    void remove_callback(int id);
    void notify(const device_event& e);
    void record(int severity, const std::string& kind, const std::string& message, const std::string& data_json = {});

    // ---- runtime hooks -------------------------------------------------------------------------
    std::function<void(bool device_usable)> release_hook;
    std::function<pending_work()> pending_probe;  // the oldest unfinished async work, and its stall
    std::atomic<uint32_t> integrity_failures{0};
    std::atomic<uint32_t> dma_refusals{0};  // DMA mappings the IOMMU refused since the last sample

    // ---- supervisor ----------------------------------------------------------------------------
    void start_supervisor();
    void stop_supervisor();
    void supervise_once();
    health_snapshot health() const;

    // ---- lifecycle pieces (exclusive gate held by the caller) ----------------------------------
    cb_status open_gpu(std::string& error);  // claim + open_device + properties
    void close_gpu() noexcept;
    // close_gpu, then open_gpu once the link (brought up to date) is up.
    cb_status reopen_gpu(std::string& error);
    cb_status open_tunnel(std::string& error);
    void close_tunnel() noexcept;
    cb_status reauthorize(std::string& error);  // after a replug, with the stored key if any
    void release_runtime(bool usable) noexcept;
    cb_status soft_reset(std::string& error);
    cb_status hard_reset(std::string& error);
    cb_status reconnect(std::string& error);
    cb_status manual_reset(bool hard);
    // A manual reset in another process cleared the failed mark this process's policy set: the
    // device is used again, with a fresh context (this process's allocations went with the reset).
    void take_manual_reset_elsewhere();
    // Another process reset the device: this process's objects are forgotten and its GPU view is
    // opened again (the context it had went with the reset). Takes the gate.
    void follow_reset_elsewhere();
    // An observer's GPU view that met a lost device is opened again, as nvidia-smi's next query
    // sees a GPU that another process reset; it resets nothing itself.
    void look_again() noexcept;
    void seen_again();  // a lost view whose GPU answers again is connected

    disconnect_report disconnect(const disconnect_options& options);
    bool others_still_busy(uint32_t timeout_ms, std::vector<cb_gpu_process>& others);
    void detach() noexcept;  // this process lets go; the connection stays for others

private:
    cb_health_sample take_sample();
    uint64_t kernel_running_ms() const;  // shared gate held
    void act(const cb_safety_decision& decision);
    void run_recovery(cb_safety_action action, const std::string& reason, uint32_t delay_ms);
    void supervisor_loop();
    bool reset_published_elsewhere() const noexcept;
    void follow_published();

    mutable std::mutex refusal_mutex_;
    std::string refusal_;

    mutable std::mutex callbacks_mutex_;
    std::map<int, device_event_callback> callbacks_;
    int next_callback_ = 1;

    // Supervisor state: only its thread (or supervise_once's caller, serialized by
    // supervise_mutex_) touches history_ and the counters; health() copies under the mutex.
    void publish_health();  // copies the supervisor's state for health() (supervise_mutex_ held)
    // health() reads this copy under its own leaf mutex: a caller holding the gate (a runtime
    // call) must never wait for supervise_mutex_, which a recovery holds while it waits for the
    // gate.
    mutable std::mutex health_mutex_;
    health_snapshot published_;

    mutable std::mutex supervise_mutex_;
    std::deque<cb_health_sample> history_;
    uint32_t recovery_attempts_ = 0;
    uint32_t healthy_streak_ = 0;  // healthy samples in a row since the last fault
    uint64_t recoveries_ = 0;
    uint64_t last_recovery_ns_ = 0;
    bool failed_ = false;
    std::string last_action_, last_reason_;
    uint64_t last_heartbeat_ok_ns_ = 0;
    cb_link_status last_link_{};
    bool have_last_link_ = false;

    std::mutex thread_mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace cudabridge::host

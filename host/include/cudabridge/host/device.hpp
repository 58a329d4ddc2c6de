// One eGPU as this process holds it: the connection sequence that brings it up, the state it is
// in, the work gate every runtime call passes, the safety supervisor that watches it, and the
// safe disconnect that takes it down.
//
// The six steps (each logged, recorded as an event with its duration, and rolled back when a
// later one fails): detect, compatibility (the safety policy's verdict), authorization (per the
// domain's security level; known devices remembered as boltctl does), tunnel (the PCIe link),
// GPU initialisation (the model profile found by PCI device id), monitoring (the supervisor).
// A device another process already connected is attached to instead: the tunnel and the GPU are
// opened here, and the connection (its session row, its epoch) is shared.
#pragma once

#include <cudabridge/core/error.hpp>
#include <cudabridge/gpu.h>
#include <cudabridge/safety.h>
#include <cudabridge/transport.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace cudabridge::host {

class session;

enum class device_state : int {
    disconnected = 0,
    detecting = 1,
    checking = 2,
    authorizing = 3,
    tunneling = 4,
    initializing = 5,
    connected = 6,
    recovering = 7,
    emergency_stop = 8,
    failed = 9,
    disconnecting = 10,
    lost = 11
};
const char* state_name(device_state s) noexcept;

// Something that happened to a device, for callbacks (C, C++, Python).
struct device_event {
    std::string device;  // the enclosure's unique id
    device_state state = device_state::disconnected;
    cb_status status = CB_OK;
    std::string kind;  // "connect.tunnel", "safety.soft_reset", "state", ...
    std::string message;
};
using device_event_callback = std::function<void(const device_event&)>;

struct step_record {
    std::string name;  // "detect", "compatibility", "authorization", "tunnel", "gpu_init", "monitoring"
    bool ok = false;
    uint64_t duration_ns = 0;
    std::string detail;
};

struct connect_options {
    // "" or "auto": the first usable eGPU; else an enclosure's unique id, its name, or its index
    // in detection order ("0", "1", ...).
    std::string device;
    bool enroll = false;  // secure domains: enroll a new key (first connection)
    // The stored policy to set when the device is authorized (boltctl enroll --policy): "auto"
    // (connect when seen) or "manual"; "" keeps the stored one (an enrolment stores "auto").
    std::string policy;
    bool allow_attach = true;  // join a connection another process made
    // When the GPU of a connection being joined does not answer, reset its PCIe function through
    // the link (a function-level reset) and try once more: what `reset --hard` and
    // `disconnect --force` need to reach a hung GPU. Off: such a join fails.
    bool reset_unanswering = false;
    // Join only, leaving no trace: a connection another process made is joined without recording
    // its steps (no events, no log lines), and when there is none to join, or the join fails,
    // connect throws instead of connecting. What read-only commands (status, info, query,
    // monitor, exporter) attach with.
    bool observe = false;
    std::function<void(const step_record&)> on_step;  // progress, as each step ends
};

// Thrown by connect: which step failed and why, and every step that ran.
class connect_error : public core::error {
public:
    connect_error(cb_status status, std::string step, const std::string& message, std::vector<step_record> steps)
        : core::error(status, message), step_(std::move(step)), steps_(std::move(steps)) {}
    const std::string& step() const noexcept { return step_; }
    const std::vector<step_record>& steps() const noexcept { return steps_; }

private:
    std::string step_;
    std::vector<step_record> steps_;
};

struct disconnect_options {
    bool force = false;  // abort pending work with device-lost instead of draining
    uint32_t drain_timeout_ms = 10000;
    std::optional<bool> deauthorize;  // default: the setting session.deauthorize_on_disconnect
};

struct disconnect_report {
    std::vector<step_record> steps;  // refuse, drain, free, monitoring, tunnel, deauthorize
    bool drained = true;             // false when the drain timed out (pending work aborted)
    // Other processes using the device when the disconnect began. Without force, one of them
    // with work queued refuses the disconnect: nothing changed, and `refused` says so.
    std::vector<cb_gpu_process> others;
    bool refused = false;
};

// The runtime's queued work as the supervisor's hung-engine check sees it.
struct pending_work {
    uint64_t oldest_ms = 0;   // age of the oldest unfinished async work; 0 when idle
    uint64_t stalled_ms = 0;  // of that, how long the GPU has not moved it (UINT64_MAX: cannot tell)
};

// What the supervisor saw last, for `status`.
struct health_snapshot {
    cb_health_sample sample{};
    uint32_t recovery_attempts = 0;
    uint64_t recoveries = 0;
    std::string last_action;
    std::string last_reason;
};

class device_impl;

// A connected (or attached) eGPU. Made by connect(); safe to use from any thread.
class device {
public:
    ~device();  // detaches (leaves the connection up for other processes) unless disconnected
    device(const device&) = delete;
    device& operator=(const device&) = delete;

    const std::string& id() const noexcept;           // the enclosure's unique id
    const std::string& function_id() const noexcept;  // the PCI function, "0000:05:00.0"
    const std::string& name() const noexcept;
    const cb_gpu_properties& properties() const noexcept;
    const cb_endpoint_info& enclosure() const noexcept;
    device_state state() const noexcept;
    // A safety policy (of this or another process) marked the device failed or stopped it: work
    // is refused in every process until a resume or a manual reset (cbDeviceReset makes one).
    bool held_by_safety_policy() const noexcept;
    bool attached() const noexcept;  // joined another process's connection
    int64_t session_id() const noexcept;
    const std::vector<step_record>& connect_steps() const noexcept;
    health_snapshot health() const;
    // Modeled link bandwidth figures etc. from the transport.
    cb_link_status link_status() const;
    // The GPU's telemetry, through the work gate: CB_OK, or why not (the message in
    // core::last_error()): the device is lost, stopped, failed or going away.
    cb_status read_telemetry(cb_gpu_telemetry& out) const;
    // The processes attached to the device, this one included, as the family lists them
    // (CB_ERR_UNSUPPORTED: a family that cannot say).
    cb_status read_processes(std::vector<cb_gpu_process>& out) const;

    // ---- the work gate ----------------------------------------------------------------------
    // Every runtime call holds a ticket while it talks to the GPU: it refuses work while the
    // device is stopped, failed, lost or going away (the status says which), and keeps recovery
    // and disconnect from pulling the GPU out from under a call in progress.
    class ticket {
    public:
        ticket() = default;
        ticket(ticket&&) noexcept = default;
        ticket& operator=(ticket&&) noexcept = default;
        explicit operator bool() const noexcept { return lock_.owns_lock(); }
        cb_gpu_device* handle() const noexcept { return handle_; }

    private:
        friend class device_impl;
        std::shared_lock<std::shared_mutex> lock_;
        cb_gpu_device* handle_ = nullptr;
    };
    // CB_OK and a held ticket, or the reason work is refused (message in core::last_error()).
    cb_status enter(ticket& out) const;
    // Bumped when the GPU lost its memory (hard reset, reconnect): allocations, streams and
    // events made before are gone.
    uint64_t memory_epoch() const noexcept;
    // Moves with every reset that abandoned this process's queued work (any kind, any process's).
    uint64_t work_abandons() const noexcept;
    const cb_gpu_table* gpu() const noexcept;
    void* gpu_instance() const noexcept;

    // ---- events and the supervisor ------------------------------------------------------------
    int add_callback(device_event_callback cb);
    void remove_callback(int id);
    // Tell the supervisor about a failed end-to-end check (counted in the next sample).
    void report_integrity_failure(const std::string& what);
    // Tell the supervisor the IOMMU refused a DMA mapping (no room: an exhausted DART).
    void report_dma_refusal(const std::string& what);
    // Code the GPU family refused to load (a PTX instruction the simulated GPU cannot run, by
    // name and line): one module.refused event in the history, so `cudabridge-cli log` says why.
    void report_module_refused(const std::string& why);
    // The runtime's answer to "how old is the oldest async work not yet complete, and how long
    // has the GPU not moved it?" (polled without blocking by the supervisor: the hung-engine
    // check judges progress, never age alone).
    void set_pending_probe(std::function<pending_work()> probe);
    // Run one supervisor cycle now (tests; the thread runs them every heartbeat interval).
    void supervise_once();

    // Manual reset: clears a "failed" mark or an emergency stop and brings the GPU back (hard
    // reset, reconnect if that does not answer). Allocations are gone afterwards.
    cb_status manual_reset(bool hard);
    // Safe disconnect (for every process: the connection ends).
    disconnect_report disconnect(const disconnect_options& options);

    // Hooks the runtime sets: called (exclusively, with no call in flight) before the GPU is
    // closed or its memory is dropped, to free or forget what the runtime holds on it.
    void set_release_hook(std::function<void(bool device_usable)> hook);

    device_impl& impl() noexcept { return *impl_; }

private:
    friend class device_impl;
    explicit device(std::unique_ptr<device_impl> impl);
    std::unique_ptr<device_impl> impl_;

    friend std::unique_ptr<device> connect(session& s, const connect_options& options);
};

// Detects and connects (or attaches to) an eGPU. Throws connect_error naming the failed step.
std::unique_ptr<device> connect(session& s, const connect_options& options = {});
// boltctl authorize: detect, the safety policy's compatibility check and the authorization (per
// the domain's security level; --enroll and the policy as connect takes them), and nothing more:
// the PCIe tunnel and the GPU wait for connect. A device already connected is left as it is.
// Returns the steps taken; throws connect_error naming the failed step.
std::vector<step_record> authorize(session& s, const connect_options& options = {});

// Every eGPU the transport sees (device routers with their PCI function, when tunnelled), in
// detection order, without connecting any.
struct detected_device {
    cb_endpoint_info enclosure{};
    std::optional<cb_endpoint_info> function;                     // the first PCI function (the GPU)
    std::vector<cb_endpoint_info> functions;                      // every PCI function behind the enclosure
    std::string gpu_model;                                        // what a simulated enclosure holds ("" when unknown)
    uint16_t advertised_vendor_id = 0, advertised_device_id = 0;  // what the enclosure says it holds
    double power_budget_w = 0;                                    // 0 when unknown
    bool connected_elsewhere = false;                             // another process holds a live connection
};
std::vector<detected_device> detect(session& s);

}  // namespace cudabridge::host

#include "query/read_snapshot.hpp"

#include <cudabridge/core/error.hpp>

#include <algorithm>
#include <mutex>

namespace cudabridge::cli::query {

const std::vector<std::string>& intervention_names() {
    static const std::vector<std::string> names = {"warn",      "throttle",       "soft_reset", "hard_reset",
                                                   "reconnect", "emergency_stop", "mark_failed"};
    return names;
}

void count_safety_events(const std::vector<core::event_row>& events, gpu_snapshot& snapshot) {
    static const std::string prefix = "safety.";
    const auto& actions = intervention_names();
    for (const auto& e : events) {
        if (e.kind.rfind(prefix, 0) != 0) continue;
        const std::string action = e.kind.substr(prefix.size());
        if (std::find(actions.begin(), actions.end(), action) == actions.end()) continue;
        ++snapshot.interventions[action];
        // What `status` counts as a recovery: the rungs that bring the device back or stop it.
        if (action == "soft_reset" || action == "hard_reset" || action == "reconnect" || action == "emergency_stop")
            ++snapshot.recoveries;
    }
}

void read_connection_events(host::session& s, const host::device& d, gpu_snapshot& snapshot) {
    std::vector<core::event_row> safety, drops;
    {
        std::lock_guard lock(s.store_mutex());
        const auto row = core::find_session(s.db(), d.session_id());
        core::event_query q;
        q.device = d.id();
        q.since_ns = row ? row->started_ns : 0;
        q.limit = 100000;
        q.kind = "safety";
        safety = core::query_events(s.db(), q);
        q.kind = "link";
        drops = core::query_events(s.db(), q);
    }
    count_safety_events(safety, snapshot);
    snapshot.link_drops = static_cast<uint64_t>(
        std::count_if(drops.begin(), drops.end(), [](const core::event_row& e) { return e.kind == "link.down"; }));
    for (const auto* events : {&safety, &drops}) {  // each newest first
        if (events->empty() || events->front().time_ns < snapshot.last_event_ns) continue;
        snapshot.last_event_ns = events->front().time_ns;
        snapshot.last_event_kind = events->front().kind;
        snapshot.last_event_message = events->front().message;
    }
}

std::string reported_state(host::device_state local, cb_status gate, bool held_by_policy) {
    if (gate != CB_OK && local == host::device_state::connected) {
        if (gate == CB_ERR_THERMAL_LIMIT) return host::state_name(host::device_state::emergency_stop);
        // Another process's policy marked it failed: refused as lost, but it is failed.
        if (gate == CB_ERR_DEVICE_LOST && held_by_policy) return host::state_name(host::device_state::failed);
        if (gate == CB_ERR_DEVICE_LOST || gate == CB_ERR_LINK_DOWN) return host::state_name(host::device_state::lost);
    }
    return host::state_name(local);
}

gpu_snapshot read_snapshot(host::session& s, host::device& d, int index, int gpu_count, int64_t time_ns) {
    gpu_snapshot out;
    out.index = index;
    out.gpu_count = gpu_count;
    out.time_ns = time_ns;

    const auto& p = d.properties();
    out.device_id = d.id();
    out.name = p.name;
    out.uuid = p.uuid;
    out.pci_bus_id = p.pci_bus_id[0] ? std::string(p.pci_bus_id) : d.function_id();
    out.architecture = p.architecture;
    out.compute_major = p.compute_major;
    out.compute_minor = p.compute_minor;
    out.total_memory = p.total_memory;
    out.max_sm_clock_mhz = p.clock_mhz;
    out.max_memory_clock_mhz = p.memory_clock_mhz;
    out.pci_vendor_id = p.pci_vendor_id;
    out.pci_device_id = p.pci_device_id;
    out.pci_subsystem_id = p.pci_subsystem_id;
    out.simulated = p.is_simulated != 0;

    // A fresh look first: after another process reset a GPU this one saw lost, the look opens it
    // again (an observer never resets it itself).
    d.supervise_once();
    // Telemetry and limits through the gate, as every runtime call passes it: a device that is
    // lost, stopped or going away refuses, and the reading says why instead of failing.
    host::device::ticket t;
    const host::device_state local = d.state();
    const cb_status gate = d.enter(t);
    if (gate == CB_OK) {
        cb_gpu_telemetry tel{};
        tel.struct_size = sizeof tel;
        if (d.gpu()->get_telemetry(d.gpu_instance(), t.handle(), &tel) == CB_OK)
            out.telemetry = tel;
        else
            out.telemetry_error = core::last_error();
        cb_gpu_setting_limits limits{};
        limits.struct_size = sizeof limits;
        if (d.gpu()->get_setting_limits(d.gpu_instance(), t.handle(), &limits) == CB_OK) out.limits = limits;
    } else {
        out.telemetry_error = core::last_error();
    }
    t = host::device::ticket();

    out.link = d.link_status();
    const auto& e = d.enclosure();
    out.link_generation = e.generation;
    out.link_lanes = e.lanes;
    out.link_lane_speed_gbps = e.lane_speed_gbps;
    out.state = reported_state(local, gate, d.held_by_safety_policy());

    read_connection_events(s, d, out);
    return out;
}

}  // namespace cudabridge::cli::query

// Gathers a gpu_snapshot from an attached device, reading only: the telemetry and the setting
// limits through the work gate, the link's figures from the transport, the device's state, and
// the safety events recorded for its connection from the store. It runs no supervisor cycle and
// records nothing, so `query` and `exporter` can read as often as they like.
#pragma once

#include "query/gpu_snapshot.hpp"

#include <cudabridge/core/store.hpp>
#include <cudabridge/host/device.hpp>
#include <cudabridge/host/session.hpp>

#include <vector>

namespace cudabridge::cli::query {

// The safety actions a policy takes ("warn", "throttle", "soft_reset", "hard_reset",
// "reconnect", "emergency_stop", "mark_failed"), in the order metrics list them.
const std::vector<std::string>& intervention_names();
// Counts the safety.* events among `events` into snapshot.recoveries and .interventions.
void count_safety_events(const std::vector<core::event_row>& events, gpu_snapshot& snapshot);
// The link and safety events of the device's connection, whichever process recorded them: the
// counts above, the link drops and the newest event.
void read_connection_events(host::session& s, const host::device& d, gpu_snapshot& snapshot);

// The state a reading reports: this process's view of the device, corrected by what its work gate
// answered. A device this process still holds as connected, whose gate refuses because another
// process disconnected it or the link is down, is "lost"; one another process's policy stopped is
// "emergency-stop", and one it marked failed (held_by_policy) "failed".
std::string reported_state(host::device_state local, cb_status gate, bool held_by_policy = false);

gpu_snapshot read_snapshot(host::session& s, host::device& d, int index, int gpu_count, int64_t time_ns);

}  // namespace cudabridge::cli::query

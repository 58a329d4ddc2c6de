// The simulated GPU's clock (what NV_PTIMER reads and the timestamp command writes): modeled time,
// i.e. what the real GPU's timer would show, not how long the simulator took on this host.
//
//   idle  (no work queued or running): follows the host's wall clock, so heartbeats see it move
//         and idle gaps between commands look as they would on hardware;
//   busy  (from the doorbell that queues work until the ring drains): frozen, except that each
//         finished command advances it by its modeled duration (work_cost.hpp; copies: the link's modeled time).
//
// It never goes backwards, whatever the wall clock or concurrent readers do. One clock per
// device model; every member is thread safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

namespace cudabridge::nv {

// Nanoseconds of the host's wall clock (CLOCK_MONOTONIC by default; tests pass their own).
using wall_clock = std::function<uint64_t()>;

class modeled_clock {
public:
    explicit modeled_clock(wall_clock wall);
    modeled_clock();  // CLOCK_MONOTONIC

    // Modeled nanoseconds now. Starts at the wall clock's reading when constructed.
    uint64_t now();
    // Work was queued or is running: stop following wall time. No-op when busy already.
    void set_busy(bool busy);
    // A command finished: `ns` of modeled time passed (busy or not).
    void advance(uint64_t ns);

    bool busy() const;

private:
    uint64_t value_at_locked(uint64_t wall);
    // base_ = the current value, anchor_wall_ = the wall clock now.
    void reanchor_locked();

    wall_clock wall_;
    mutable std::mutex m_;
    bool busy_ = false;
    uint64_t base_ = 0;         // modeled time at the last anchor
    uint64_t anchor_wall_ = 0;  // wall time of the last anchor (idle: time grows from here)
    uint64_t last_read_ = 0;    // the largest value handed out (monotonic guard)
};

}  // namespace cudabridge::nv

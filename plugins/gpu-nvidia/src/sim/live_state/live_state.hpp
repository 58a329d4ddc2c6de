// Shared live state of one simulated GPU: a small memory-mapped file per device, so that a
// monitor in one process sees the utilization, memory use, temperature, power and errors of work
// running in another, and settings made in one process hold in all (as on a real board).
//
// Layout: a versioned header, a process-shared robust mutex, the thermal model's state (thermal/)
// and counters. Processes attach by path; the first creates and initialises the file (under an
// flock so two first openers do not race); later ones check magic, version and size and refuse a
// file that does not match (never trusting its contents blindly). A process that dies holding the
// mutex is recovered from (robust mutex: EOWNERDEAD -> pthread_mutex_consistent).
//
// VRAM contents are per process (each process's model has its own memory); memory_used sums what
// the attached processes have allocated.
#pragma once

#include "common/profiles/profile.hpp"
#include "sim/thermal/thermal_model.hpp"

#include <cudabridge/abi.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace cudabridge::nv {

struct live_counters {
    uint64_t busy_ns = 0;         // engine busy time, all processes, since the file was made
    uint64_t last_update_ns = 0;  // CLOCK_MONOTONIC of the last thermal advance
    uint64_t memory_used = 0;     // bytes allocated, all attached processes
    uint64_t memory_total = 0;
    uint64_t bytes_h2d = 0, bytes_d2h = 0;
    uint64_t kernels_launched = 0;
    uint64_t commands_completed = 0;
    uint64_t command_errors = 0;
    uint64_t xid_count = 0;
    uint32_t last_xid = 0;
    uint32_t attached_processes = 0;
    double gpu_utilization = 0;           // percent, smoothed
    double memory_utilization = 0;        // percent of VRAM in use
    uint64_t busy_ns_at_last_update = 0;  // busy_ns the thermal advances have consumed so far
    uint64_t last_prune_ns = 0;           // when attachments of dead processes were last dropped
};

// What one snapshot holds.
struct live_snapshot {
    thermal_state thermal;
    live_counters counters;
};

class live_state {
public:
    // Opens (creating when absent) the file at `path` for the device `profile` describes.
    // Throws std::runtime_error naming the path and the reason when it cannot (wrong size,
    // wrong magic/version, different model, permission).
    live_state(const std::filesystem::path& path, const gpu_profile& profile);
    ~live_state();  // detaches (attached_processes--); never deletes the file
    live_state(const live_state&) = delete;
    live_state& operator=(const live_state&) = delete;

    const std::filesystem::path& path() const noexcept;

    // Runs fn on the shared data under the process-shared lock. fn must be quick and not throw.
    void update(const std::function<void(thermal_state&, live_counters&)>& fn);
    live_snapshot snapshot() const;

    // Advances the thermal model to now (CLOCK_MONOTONIC) using the busy time recorded since the
    // last advance, and refreshes utilization. Called by readers before they report.
    void tick();

    // Adds busy time of an engine (called by engines as work completes). Busy time that arrives
    // in a lump is spread over the following ticks (at most 1 s is carried).
    void add_busy(uint64_t ns);

    // Adds (or, negative, removes) bytes this attachment has allocated. Unlike a direct change
    // of counters.memory_used in update(), this is given back when the attachment closes or its
    // process dies.
    void add_memory_used(int64_t delta_bytes);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

// Default file name for a device: "<state_dir>/gpu-<sanitised id>.live".
std::filesystem::path live_state_path(const std::filesystem::path& state_dir, const std::string& device_id);

}  // namespace cudabridge::nv

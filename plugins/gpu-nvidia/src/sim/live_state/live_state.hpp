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
// the attached processes have allocated, and an allocation that would take it past the board's
// VRAM is refused, whichever process asks. Each attachment also records who it is (pid, name,
// start time), whether it computes, and how many commands it has queued: the device's process
// table (processes()).
#pragma once

#include "common/profiles/profile.hpp"
#include "sim/thermal/thermal_model.hpp"

#include <cudabridge/abi.h>

#include <cstdint>
#include <filesystem>
#include "sim/live_state/busy_share.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

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
    double gpu_utilization = 0;           // percent of the time a kernel ran, smoothed
    double memory_utilization = 0;        // percent of the time device memory was read or written, smoothed
    uint64_t busy_ns_at_last_update = 0;  // busy_ns the thermal advances have consumed so far
    uint64_t last_prune_ns = 0;           // when attachments of dead processes were last dropped
    uint64_t hard_resets = 0;             // hard resets of the device, whichever process asked
    // Layout 3: utilization as NVML defines it. Kernels alone count toward gpu_utilization, time
    // device memory was read or written toward memory_utilization (busy_ns above drives power).
    busy_share kernels;
    busy_share memory_traffic;
};

// One attached process, as the device's process table lists it.
struct live_process {
    int32_t pid = 0;
    std::string name;            // /proc/PID/comm of the process when it attached
    uint64_t start_unix_ns = 0;  // when it attached
    uint64_t memory_bytes = 0;   // device memory it has allocated
    uint32_t queued = 0;         // commands it has queued that have not completed
    bool computes = false;       // it has allocated, or queued work
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

    // Takes `bytes` of the board's VRAM for this attachment: false (nothing taken) when every
    // attached process together would then hold more than the board has.
    bool reserve_memory(uint64_t bytes);
    // Gives back up to `bytes` of what this attachment reserved (all of it: UINT64_MAX).
    void release_memory(uint64_t bytes);
    // The commands this attachment has queued and not seen complete (the ring's depth).
    void set_queued(uint32_t commands);
    // Counts a hard reset of the device (every attached process's model sees it).
    void count_hard_reset();

    // The device's process table: every live attachment of the file at `path`, without
    // attaching to it. Throws std::runtime_error as the constructor does for a file it refuses;
    // an absent file lists no process.
    static std::vector<live_process> processes(const std::filesystem::path& path);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

// Default file name for a device: "<state_dir>/gpu-<sanitised id>.v<layout>.live" (a new layout
// gets a new name, so a file an older version left behind is never mistaken for this one).
std::filesystem::path live_state_path(const std::filesystem::path& state_dir, const std::string& device_id);

}  // namespace cudabridge::nv

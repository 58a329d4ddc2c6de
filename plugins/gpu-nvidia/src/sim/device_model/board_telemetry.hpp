// The board's thermal / power / fan / clock state, settings and counters. With a live state file
// (live_state/) they are shared with every process that simulates the same device; without one
// the model keeps a private thermal state and advances it with its own busy time.
#pragma once

#include "sim/live_state/live_state.hpp"
#include "common/profiles/profile.hpp"
#include "sim/thermal/thermal_model.hpp"

#include <cudabridge/gpu.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cudabridge::nv {

// What one finished command adds to the counters.
struct command_record {
    uint64_t busy_ns = 0;
    uint64_t memory_busy_ns = 0;   // the part of busy_ns device memory was read or written
    uint64_t memory_model_ns = 0;  // modeled time of its device-memory traffic (bytes / bandwidth)
    uint64_t bytes_h2d = 0, bytes_d2h = 0;
    bool kernel = false;
    bool failed = false;
    uint32_t xid = 0;  // 0: none
};

// The board now, as the telemetry registers report it.
struct telemetry_sample {
    thermal_state thermal;
    double gpu_utilization_percent = 0;
    double memory_utilization_percent = 0;  // time device memory was read or written
    uint64_t xid_count = 0;
    uint32_t last_xid = 0;
};

class board_telemetry {
public:
    // `live_file` empty: private state. Throws std::runtime_error when the file cannot be used.
    board_telemetry(const gpu_profile& profile, const std::filesystem::path& live_file);
    ~board_telemetry();
    board_telemetry(const board_telemetry&) = delete;
    board_telemetry& operator=(const board_telemetry&) = delete;

    // Advances the model to now (CLOCK_MONOTONIC) and reads it.
    telemetry_sample sample();
    void record(const command_record& record);

    // Settings: checked against the profile's bounds (thermal/apply_settings); nothing changes
    // when refused.
    cb_status apply(const cb_gpu_settings& request, std::string& error);
    thermal_settings settings();
    // Hard reset: settings back to the profile's defaults (the temperature stays: it is physics).
    void reset_settings();

    // Advances the model as if `seconds` had passed with the engines busy for the fraction
    // `activity` of them, without waiting (tests, demos).
    void simulate_elapsed(double seconds, double activity);

    // Device memory and the process table, shared with every process that simulates the device
    // (private: this process alone). reserve_memory is false when the board's VRAM would
    // overflow, counting what other processes hold.
    bool reserve_memory(uint64_t bytes);
    void release_memory(uint64_t bytes);
    uint64_t memory_used();
    std::vector<live_process> processes();
    void set_queued(uint32_t commands);
    void count_hard_reset();
    uint64_t hard_resets();

    // The shared state, or nullptr when private.
    live_state* shared() noexcept { return live_.get(); }

private:
    void advance_private_locked(uint64_t now_ns);

    const gpu_profile& profile_;
    std::unique_ptr<live_state> live_;
    std::mutex m_;  // the private state below
    thermal_state thermal_;
    uint64_t last_advance_ns_ = 0;
    uint64_t busy_pending_ns_ = 0;
    busy_share kernels_, memory_traffic_;  // utilization, as the live state's counters
    uint64_t xid_count_ = 0;
    uint32_t last_xid_ = 0;
    live_process self_;  // the private process table's only row
    uint64_t hard_resets_ = 0;
};

}  // namespace cudabridge::nv

#include "sim/device_model/board_telemetry.hpp"

#include "sim/device_model/host_wall_clock.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>

namespace cudabridge::nv {
namespace {

// Busy time carried past one advance at most (work recorded late counts once, not forever).
constexpr uint64_t max_busy_carry_ns = 1'000'000'000;

void count(live_counters& c, const command_record& r) {
    c.bytes_h2d += r.bytes_h2d;
    c.bytes_d2h += r.bytes_d2h;
    if (r.kernel) ++c.kernels_launched;
    ++c.commands_completed;
    if (r.failed) ++c.command_errors;
    if (r.xid) {
        ++c.xid_count;
        c.last_xid = r.xid;
    }
}

}  // namespace

board_telemetry::board_telemetry(const gpu_profile& profile, const std::filesystem::path& live_file)
    : profile_(profile), thermal_(initial_thermal_state(profile)), last_advance_ns_(monotonic_ns()) {
    if (!live_file.empty()) live_ = std::make_unique<live_state>(live_file, profile);
    std::ifstream comm("/proc/self/comm");
    std::getline(comm, self_.name);
    self_.start_unix_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
}

board_telemetry::~board_telemetry() = default;

bool board_telemetry::reserve_memory(uint64_t bytes) {
    if (live_) return live_->reserve_memory(bytes);
    std::lock_guard lock(m_);
    if (bytes > profile_.vram_bytes - std::min(profile_.vram_bytes, self_.memory_bytes)) return false;
    self_.memory_bytes += bytes;
    self_.computes = true;
    return true;
}

void board_telemetry::release_memory(uint64_t bytes) {
    if (live_) {
        live_->release_memory(bytes);
        return;
    }
    std::lock_guard lock(m_);
    self_.memory_bytes -= std::min(self_.memory_bytes, bytes);
}

uint64_t board_telemetry::memory_used() {
    if (live_) return live_->snapshot().counters.memory_used;
    std::lock_guard lock(m_);
    return self_.memory_bytes;
}

std::vector<live_process> board_telemetry::processes() {
    if (live_) return live_state::processes(live_->path());
    std::lock_guard lock(m_);
    live_process self = self_;
    self.pid = static_cast<int32_t>(getpid());
    return {self};
}

void board_telemetry::set_queued(uint32_t commands) {
    if (live_) {
        live_->set_queued(commands);
        return;
    }
    std::lock_guard lock(m_);
    self_.queued = commands;
    if (commands) self_.computes = true;
}

void board_telemetry::count_hard_reset() {
    if (live_) {
        live_->count_hard_reset();
        return;
    }
    std::lock_guard lock(m_);
    ++hard_resets_;
}

uint64_t board_telemetry::hard_resets() {
    if (live_) return live_->snapshot().counters.hard_resets;
    std::lock_guard lock(m_);
    return hard_resets_;
}

void board_telemetry::advance_private_locked(uint64_t now_ns) {
    if (now_ns <= last_advance_ns_) return;
    const uint64_t elapsed = now_ns - last_advance_ns_;
    const uint64_t busy = std::min(busy_pending_ns_, elapsed);
    advance(profile_, thermal_, static_cast<double>(elapsed) * 1e-9,
            static_cast<double>(busy) / static_cast<double>(elapsed));
    kernels_.advance(elapsed);
    memory_traffic_.advance(elapsed);
    busy_pending_ns_ = std::min(busy_pending_ns_ - busy, max_busy_carry_ns);
    last_advance_ns_ = now_ns;
}

telemetry_sample board_telemetry::sample() {
    telemetry_sample s;
    if (live_) {
        live_->tick();
        const live_snapshot snap = live_->snapshot();
        s.thermal = snap.thermal;
        s.gpu_utilization_percent = snap.counters.gpu_utilization;
        s.memory_utilization_percent = snap.counters.memory_utilization;
        s.xid_count = snap.counters.xid_count;
        s.last_xid = snap.counters.last_xid;
        return s;
    }
    std::lock_guard lock(m_);
    advance_private_locked(monotonic_ns());
    s.thermal = thermal_;
    s.gpu_utilization_percent = 100.0 * kernels_.share;
    s.memory_utilization_percent = 100.0 * memory_traffic_.share;
    s.xid_count = xid_count_;
    s.last_xid = last_xid_;
    return s;
}

void board_telemetry::record(const command_record& r) {
    if (live_) {
        if (r.busy_ns) live_->add_busy(r.busy_ns);
        live_->update([&](thermal_state&, live_counters& c) {
            count(c, r);
            if (r.kernel) c.kernels.add(r.busy_ns);
            c.memory_traffic.add(r.memory_busy_ns);
        });
        return;
    }
    std::lock_guard lock(m_);
    busy_pending_ns_ += r.busy_ns;
    if (r.kernel) kernels_.add(r.busy_ns);
    memory_traffic_.add(r.memory_busy_ns);
    if (r.xid) {
        ++xid_count_;
        last_xid_ = r.xid;
    }
}

cb_status board_telemetry::apply(const cb_gpu_settings& request, std::string& error) {
    cb_status st = CB_OK;
    if (live_) {
        live_->update(
            [&](thermal_state& t, live_counters&) { st = apply_settings(profile_, t.settings, request, error); });
        return st;
    }
    std::lock_guard lock(m_);
    return apply_settings(profile_, thermal_.settings, request, error);
}

thermal_settings board_telemetry::settings() {
    if (live_) return live_->snapshot().thermal.settings;
    std::lock_guard lock(m_);
    return thermal_.settings;
}

void board_telemetry::reset_settings() {
    const thermal_settings defaults = initial_thermal_state(profile_).settings;
    if (live_) {
        live_->update([&](thermal_state& t, live_counters&) { t.settings = defaults; });
        return;
    }
    std::lock_guard lock(m_);
    thermal_.settings = defaults;
}

// The engines' activity here is kernels running: utilization.gpu follows it.
void board_telemetry::simulate_elapsed(double seconds, double activity) {
    const auto elapsed = static_cast<uint64_t>(seconds * 1e9);
    const auto busy = static_cast<uint64_t>(seconds * activity * 1e9);
    if (live_) {
        live_->update([&](thermal_state& t, live_counters& c) {
            advance(profile_, t, seconds, activity);
            c.kernels.add(busy);
            c.kernels.advance(elapsed);
            c.memory_traffic.advance(elapsed);
            c.gpu_utilization = 100.0 * c.kernels.share;
            c.memory_utilization = 100.0 * c.memory_traffic.share;
        });
        return;
    }
    std::lock_guard lock(m_);
    advance_private_locked(monotonic_ns());
    advance(profile_, thermal_, seconds, activity);
    kernels_.add(busy);
    kernels_.advance(elapsed);
    memory_traffic_.advance(elapsed);
}

}  // namespace cudabridge::nv

#include "wire/wire.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace cudabridge::usb4 {
namespace {

constexpr size_t index_of(direction d) noexcept { return static_cast<size_t>(d); }

bool payload_valid(uint32_t payload_bytes) noexcept {
    return payload_bytes >= 1 && payload_bytes <= kMaxTunnelPayloadBytes;
}

void add(std::atomic<uint64_t>& counter, uint64_t n) noexcept {
    if (n != 0) counter.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace

cb_status wire::validate(const wire_config& config) noexcept {
    if (!wire_timing_valid(config.timing) || !payload_valid(config.payload_bytes)) return CB_ERR_INVALID_ARGUMENT;
    return CB_OK;
}

wire::wire(const wire_config& config) : config_(config), injector_(config.seed) {
    if (validate(config) != CB_OK)
        throw std::invalid_argument("usb4 wire: rates must be positive and finite, payload 1..256 bytes");
}

cb_status wire::transfer(direction dir, const void* src, void* dst, size_t size, uint64_t& modeled_ns) noexcept {
    modeled_ns = 0;
    if (size != 0 && (src == nullptr || dst == nullptr)) return CB_ERR_INVALID_ARGUMENT;

    std::lock_guard lock(mutex_);
    const auto wall_start = std::chrono::steady_clock::now();
    packet_run run;

    if (unplugged_) return finish(dir, CB_ERR_DEVICE_LOST, run, config_.timing.latency_ns, modeled_ns);
    if (link_down_locked()) return finish(dir, CB_ERR_LINK_DOWN, run, config_.timing.latency_ns, modeled_ns);
    if (size == 0) return finish(dir, CB_OK, run, 0, modeled_ns);

    // An armed unplug_after() cut inside this transfer: only whole packets before it cross.
    size_t deliver = size;
    bool cut = false;
    if (unplug_budget_ && *unplug_budget_ < size) {
        deliver = static_cast<size_t>(*unplug_budget_ / config_.payload_bytes) * config_.payload_bytes;
        cut = true;
    }

    const packet_engine_config engine{config_.payload_bytes, config_.retry_limit, kPcieHopId};
    move_packets(engine, static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), deliver,
                 sequence_[index_of(dir)], injector_, run);

    cb_status status = CB_OK;
    if (run.integrity_failed) status = CB_ERR_INTEGRITY;
    if (unplug_budget_) {
        *unplug_budget_ -= run.payload_bytes;
        if (cut || *unplug_budget_ == 0) {  // the device is gone at the mark
            unplugged_ = true;
            unplug_budget_.reset();
        }
        if (cut && status == CB_OK) status = CB_ERR_DEVICE_LOST;
    }

    const uint64_t ns = modeled_transfer_ns(config_.timing, dir, run.wire_bytes, run.replays);
    const cb_status result = finish(dir, status, run, ns, modeled_ns);
    if (pacing_) std::this_thread::sleep_until(wall_start + std::chrono::nanoseconds(ns));
    return result;
}

cb_status wire::finish(direction dir, cb_status status, const packet_run& run, uint64_t ns,
                       uint64_t& modeled_ns) noexcept {
    clock_ += ns;
    modeled_ns = ns;
    auto& c = counters_;
    add(c.transfers, 1);
    if (status != CB_OK) add(c.failed_transfers, 1);
    add(c.bytes[index_of(dir)], run.payload_bytes);
    add(c.packets[index_of(dir)], run.packets);
    add(c.wire_bytes, run.wire_bytes);
    add(c.crc_errors, run.crc_errors);
    add(c.replays, run.replays);
    add(c.corrupted_packets, run.corrupted_packets);
    add(c.undetected_errors, run.undetected);
    c.injected_bit_errors.store(injector_.bits_flipped(), std::memory_order_relaxed);
    add(c.modeled_ns, ns);
    c.clock_ns.store(clock_, std::memory_order_relaxed);
    return status;
}

bool wire::link_down_locked() const noexcept {
    return clock_ < drop_until_ && (!drop_wall_bounded_ || std::chrono::steady_clock::now() < drop_wall_until_);
}

cb_status wire::set_timing(const wire_timing& timing) noexcept {
    if (!wire_timing_valid(timing)) return CB_ERR_INVALID_ARGUMENT;
    std::lock_guard lock(mutex_);
    config_.timing = timing;
    return CB_OK;
}

cb_status wire::set_payload_bytes(uint32_t payload_bytes) noexcept {
    if (!payload_valid(payload_bytes)) return CB_ERR_INVALID_ARGUMENT;
    std::lock_guard lock(mutex_);
    config_.payload_bytes = payload_bytes;
    return CB_OK;
}

void wire::set_retry_limit(uint32_t replays) noexcept {
    std::lock_guard lock(mutex_);
    config_.retry_limit = replays;
}

wire_config wire::config() const {
    std::lock_guard lock(mutex_);
    return config_;
}

cb_status wire::set_bit_error_rate(double per_bit) noexcept {
    std::lock_guard lock(mutex_);
    return injector_.set_rate(per_bit) ? CB_OK : CB_ERR_INVALID_ARGUMENT;
}

void wire::reseed(uint64_t seed) noexcept {
    std::lock_guard lock(mutex_);
    config_.seed = seed;
    injector_.reseed(seed);
}

void wire::drop_link_for(uint64_t ns, bool wall_bound) noexcept {
    std::lock_guard lock(mutex_);
    drop_until_ = ns > UINT64_MAX - clock_ ? UINT64_MAX : clock_ + ns;
    drop_wall_bounded_ = wall_bound;
    // A day at most in wall time (the CLI's bound): far beyond it the time point would overflow.
    const uint64_t wall_ns = std::min<uint64_t>(ns, uint64_t{86400} * 1000000000);
    drop_wall_until_ = std::chrono::steady_clock::now() + std::chrono::nanoseconds(wall_ns);
}

void wire::unplug() noexcept {
    std::lock_guard lock(mutex_);
    unplugged_ = true;
    unplug_budget_.reset();
}

void wire::unplug_after(uint64_t bytes) noexcept {
    std::lock_guard lock(mutex_);
    if (bytes == 0) {
        unplugged_ = true;
        unplug_budget_.reset();
    } else {
        unplug_budget_ = bytes;
    }
}

void wire::replug() noexcept {
    std::lock_guard lock(mutex_);
    unplugged_ = false;
    unplug_budget_.reset();
}

bool wire::plugged() const noexcept {
    std::lock_guard lock(mutex_);
    return !unplugged_;
}

bool wire::link_up() const noexcept {
    std::lock_guard lock(mutex_);
    return !link_down_locked();
}

void wire::set_pacing(bool on) noexcept {
    std::lock_guard lock(mutex_);
    pacing_ = on;
}

void wire::advance_clock(uint64_t ns) noexcept {
    std::lock_guard lock(mutex_);
    clock_ = ns > UINT64_MAX - clock_ ? UINT64_MAX : clock_ + ns;
    counters_.clock_ns.store(clock_, std::memory_order_relaxed);
}

uint64_t wire::clock_ns() const noexcept { return counters_.clock_ns.load(std::memory_order_relaxed); }

wire_stats wire::stats() const noexcept {
    const auto& c = counters_;
    auto get = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
    wire_stats s;
    s.transfers = get(c.transfers);
    s.failed_transfers = get(c.failed_transfers);
    s.bytes_to_device = get(c.bytes[index_of(direction::to_device)]);
    s.bytes_from_device = get(c.bytes[index_of(direction::from_device)]);
    s.packets_to_device = get(c.packets[index_of(direction::to_device)]);
    s.packets_from_device = get(c.packets[index_of(direction::from_device)]);
    s.wire_bytes = get(c.wire_bytes);
    s.crc_errors = get(c.crc_errors);
    s.replays = get(c.replays);
    s.injected_bit_errors = get(c.injected_bit_errors);
    s.corrupted_packets = get(c.corrupted_packets);
    s.undetected_errors = get(c.undetected_errors);
    s.modeled_ns = get(c.modeled_ns);
    s.clock_ns = get(c.clock_ns);
    return s;
}

}  // namespace cudabridge::usb4

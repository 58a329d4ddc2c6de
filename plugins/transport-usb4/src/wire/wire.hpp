// One simulated USB4 link's data path: packets, CRC-32C, replay, modeled time, fault injection.
//
// Thread safety: every member may be called from any thread. Transfers are serialised by one
// mutex per wire (a link carries one packet stream at a time, so the model does too); stats()
// reads atomics and never waits for a running transfer.
//
// The modeled clock: the wire keeps its own clock, in nanoseconds, that advances by the modeled
// time of every transfer (failed ones included) and by advance_clock() for idle time. Link-drop
// windows are measured on this clock, not on wall time, so tests and paced runs see the same
// faults.
#pragma once

#include "wire/bit_error_injector.hpp"
#include "wire/packet_engine.hpp"
#include "wire/tunnel_header.hpp"
#include "wire/wire_stats.hpp"
#include "wire/wire_timing.hpp"

#include <cudabridge/abi.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

namespace cudabridge::usb4 {

// Replays per packet before a transfer fails with CB_ERR_INTEGRITY. PCIe's data link layer gives
// up after 4 replays of the same TLP (REPLAY_NUM rollover) and retrains; this model has no
// retraining, so it allows twice that.
inline constexpr uint32_t kDefaultRetryLimit = 8;

struct wire_config {
    wire_timing timing{};
    uint32_t payload_bytes = kMaxTunnelPayloadBytes;  // 1..256
    uint32_t retry_limit = kDefaultRetryLimit;
    uint64_t seed = 0;  // fault injection stream
};

class wire {
public:
    // Throws std::invalid_argument when validate(config) is not CB_OK.
    explicit wire(const wire_config& config);
    wire(const wire&) = delete;
    wire& operator=(const wire&) = delete;

    // CB_ERR_INVALID_ARGUMENT for non-positive or non-finite rates or a payload outside 1..256.
    static cb_status validate(const wire_config& config) noexcept;

    // Moves `size` bytes from src to dst (not overlapping) across the link. modeled_ns receives
    // the link time this call took (also on failure). Status:
    //   CB_OK                    every byte arrived intact;
    //   CB_ERR_INVALID_ARGUMENT  null src/dst with size > 0;
    //   CB_ERR_DEVICE_LOST       unplugged, or the unplug_after() cut fell inside this transfer
    //                            (whole packets before the cut were delivered, nothing after);
    //   CB_ERR_LINK_DOWN         the modeled clock is inside a drop_link_for() window;
    //   CB_ERR_INTEGRITY         a packet failed its CRC check retry_limit + 1 times; dst holds
    //                            no result the caller may use.
    // A refused transfer (unplugged, link down) still charges one latency to the clock: the time
    // it takes to learn the link is gone.
    cb_status transfer(direction dir, const void* src, void* dst, size_t size, uint64_t& modeled_ns) noexcept;

    // Link renegotiation (e.g. a downgraded link).
    cb_status set_timing(const wire_timing& timing) noexcept;
    cb_status set_payload_bytes(uint32_t payload_bytes) noexcept;
    void set_retry_limit(uint32_t replays) noexcept;
    wire_config config() const;

    // Fault injection. Rates are per bit in [0, 1] (else CB_ERR_INVALID_ARGUMENT); reseed()
    // restarts the injector's stream.
    cb_status set_bit_error_rate(double per_bit) noexcept;
    void reseed(uint64_t seed) noexcept;
    // The link is down from now (modeled clock) for `ns` modeled nanoseconds. With `wall_bound`
    // the drop also ends once `ns` of wall time (steady clock) has passed: the modeled clock
    // moves only with traffic, so an idle link, or one whose users wait, would otherwise stay
    // down long after a real one came back.
    void drop_link_for(uint64_t ns, bool wall_bound = false) noexcept;
    // Surprise removal now: every later transfer fails with CB_ERR_DEVICE_LOST.
    void unplug() noexcept;
    // Removal once `bytes` more payload bytes (both directions together) have crossed. A transfer
    // that would cross that mark delivers the whole packets before it and fails with
    // CB_ERR_DEVICE_LOST; one that ends exactly on it succeeds and the device is gone afterwards.
    void unplug_after(uint64_t bytes) noexcept;
    // Plugged back: clears unplug() and a pending unplug_after(). Drop windows are separate.
    void replug() noexcept;
    bool plugged() const noexcept;
    bool link_up() const noexcept;  // false while the clock (or clocks) is in a drop window

    // Wall-clock pacing: when on, transfer() returns no sooner than its modeled time after it
    // started (it sleeps holding the link, so back-to-back transfers pace as one stream).
    void set_pacing(bool on) noexcept;
    // Idle time passes on the modeled clock (e.g. a caller waiting before a retry).
    void advance_clock(uint64_t ns) noexcept;
    uint64_t clock_ns() const noexcept;

    wire_stats stats() const noexcept;

private:
    struct counters {
        std::atomic<uint64_t> transfers{0}, failed_transfers{0};
        std::atomic<uint64_t> bytes[2]{}, packets[2]{};
        std::atomic<uint64_t> wire_bytes{0}, crc_errors{0}, replays{0};
        std::atomic<uint64_t> injected_bit_errors{0}, corrupted_packets{0}, undetected_errors{0};
        std::atomic<uint64_t> modeled_ns{0}, clock_ns{0};
    };

    cb_status finish(direction dir, cb_status status, const packet_run& run, uint64_t ns,
                     uint64_t& modeled_ns) noexcept;
    bool link_down_locked() const noexcept;

    mutable std::mutex mutex_;
    wire_config config_;
    bit_error_injector injector_;
    uint32_t sequence_[2] = {0, 0};
    bool unplugged_ = false;
    std::optional<uint64_t> unplug_budget_;                    // payload bytes that may still cross
    uint64_t clock_ = 0;                                       // modeled clock (ns)
    uint64_t drop_until_ = 0;                                  // link down while clock_ < drop_until_
    bool drop_wall_bounded_ = false;                           // ... and, when bounded, while the wall time is
    std::chrono::steady_clock::time_point drop_wall_until_{};  // before this
    bool pacing_ = false;
    counters counters_;
};

}  // namespace cudabridge::usb4

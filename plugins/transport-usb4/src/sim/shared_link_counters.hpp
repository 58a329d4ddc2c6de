// The counters of one simulated enclosure's link that every process sees. A real adapter keeps
// one set of CRC and replay counters however many programs use the GPU behind it; here each
// process has its own wire, so each adds what its wire moved to a small memory-mapped file per
// enclosure, and `status`, `monitor` and `query` in any process read the totals.
//
// The file also keeps what the recent error rate needs: the totals when the current window (at
// least a second, rolled by whichever process publishes first after it ends) and the one before
// it began. The rate is CRC failures per packet sent since the earlier of the two.
//
// Counters are lock-free atomics in the mapping; only the window roll takes the file's flock,
// which the kernel drops if the process dies holding it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

namespace cudabridge::usb4 {

// What one link's wire moved since it last published.
struct link_traffic {
    uint64_t packets = 0;     // delivered intact
    uint64_t crc_errors = 0;  // receiver checks that failed (each one replayed or given up)
    uint64_t replays = 0;
    uint64_t bytes_to_device = 0, bytes_from_device = 0;
    uint64_t uncorrectable = 0;  // DMA that failed for good
};

// What `now` adds to `before` (counters only grow).
link_traffic operator-(const link_traffic& now, const link_traffic& before) noexcept;

struct shared_link_totals {
    link_traffic total;            // every process, since the file was made
    double recent_error_rate = 0;  // CRC failures per packet sent, this window and the last
};

// The fraction of packet sends that failed their CRC check: 0 when nothing was sent.
double crc_failure_rate(uint64_t packets, uint64_t crc_errors) noexcept;

class shared_link_counters {
public:
    // Opens (creating when absent) the counters file at `path`. Throws std::runtime_error naming
    // the file and the reason when it cannot, or when the file is not one of ours.
    explicit shared_link_counters(const std::filesystem::path& path);
    ~shared_link_counters();
    shared_link_counters(const shared_link_counters&) = delete;
    shared_link_counters& operator=(const shared_link_counters&) = delete;

    // Adds `delta` to the totals and rolls the error-rate window when it is due (`now_ns`,
    // CLOCK_MONOTONIC).
    void publish(const link_traffic& delta, uint64_t now_ns);
    shared_link_totals read() const;

    static constexpr uint64_t window_ns = 1'000'000'000;

private:
    void roll_window(uint64_t now_ns);

    struct mapped;
    mapped* file_ = nullptr;
    int fd_ = -1;
};

// Where enclosure `enclosure_id`'s counters live in the state folder `dir`.
std::filesystem::path link_counters_path(const std::filesystem::path& dir, const std::string& enclosure_id);

}  // namespace cudabridge::usb4

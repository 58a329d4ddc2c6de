// Builders of the records the host hands a safety policy (device facts, health samples and
// histories), including ABI 1.0-sized ones laid out as an ABI 1.0 host lays them out.
#pragma once

#include <cudabridge/safety.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudabridge::test {

// ABI 1.0 record sizes, written out: what an ABI 1.0 host puts in struct_size.
inline constexpr uint32_t v10_sample_size = 88;
inline constexpr uint32_t v10_history_size = 32;

// An RTX-class NVIDIA display controller on a Thunderbolt 4 link, enough power, IOMMU on.
cb_device_facts nvidia_facts();

// A healthy sample: link up, 60 °C, no errors, heartbeat 100 ms ago, idle.
cb_health_sample healthy_sample();

// A history over samples it owns (oldest first), full ABI 1.3 size.
struct history {
    std::vector<cb_health_sample> samples;
    uint32_t recovery_attempts = 0;
    bool emergency_stopped = false;
    bool failed = false;

    // `current` after a healthy previous sample (so counters and Xids compare against it).
    static history after_healthy(const cb_health_sample& current);
    cb_health_history view() const;  // valid while this object lives and is unchanged
};

// The same history as an ABI 1.0 host hands it: 88-byte sample records back to back and a
// 32-byte history. Owns its bytes.
struct v10_history {
    explicit v10_history(const history& h);
    cb_health_history view() const;

    std::vector<unsigned char> sample_bytes;
    size_t count = 0;
    uint32_t recovery_attempts = 0;
};

}  // namespace cudabridge::test

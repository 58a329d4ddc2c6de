// The device's nanosecond timer (NV_PTIMER): CLOCK_MONOTONIC, so device timestamps and host
// times compare directly.
#pragma once

#include <cstdint>
#include <ctime>

namespace cudabridge::nv {

inline uint64_t monotonic_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace cudabridge::nv

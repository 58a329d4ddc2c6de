// The host's wall clock (CLOCK_MONOTONIC) in nanoseconds: what the thermal model and the live
// state run on, and what the modeled device clock (modeled_clock.hpp) follows while the engines
// are idle. NV_PTIMER itself reads the modeled clock, not this.
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

#include "sim/live_state/busy_share.hpp"

#include <algorithm>
#include <cmath>

namespace cudabridge::nv {

namespace {
constexpr double smoothing_s = 0.5;               // the thermal model's activity lag
constexpr uint64_t max_carry_ns = 1'000'000'000;  // busy time carried past a reading, at most
}  // namespace

void busy_share::advance(uint64_t elapsed_ns) {
    if (busy_ns < counted_ns) counted_ns = busy_ns;  // the counter began again
    if (elapsed_ns == 0) return;
    const uint64_t used = std::min(busy_ns - counted_ns, elapsed_ns);
    const double now = static_cast<double>(used) / static_cast<double>(elapsed_ns);
    share = now + (share - now) * std::exp(-static_cast<double>(elapsed_ns) * 1e-9 / smoothing_s);
    counted_ns += used;
    if (busy_ns - counted_ns > max_carry_ns) counted_ns = busy_ns - max_carry_ns;
}

}  // namespace cudabridge::nv

// Timing shared by the benchmarks: each figure is the best of `reps` runs, the least-disturbed
// one on a shared host. Header-only.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>

namespace cudabridge::bench {

// The shortest wall time, in seconds, of `reps` calls of `f`.
inline double best_seconds(int reps, const std::function<void()>& f) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

}  // namespace cudabridge::bench

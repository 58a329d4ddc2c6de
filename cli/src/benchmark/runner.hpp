// The measurements behind `cudabridge-cli benchmark`: copies by size in every direction
// (pageable and pinned host memory), kernel launch latency, elementwise bandwidth and matrix
// product throughput, each timed twice over the same work: by the device's events (the GPU's
// timer on hardware, the simulator's modeled clock on a simulated GPU) and by this machine's
// wall clock.
#pragma once

#include <cudabridge/host/runtime.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cudabridge::cli {

struct bench_options {
    uint64_t min_bytes = 4096;
    uint64_t max_bytes = 1ull << 30;
    uint64_t bytes_per_figure = 256ull << 20;  // repetitions = this / size, within [3, 100]
    int64_t elementwise_elements = 16 << 20;
    int64_t matmul_n = 1024;
    int launches = 200;
};

struct bench_figure {
    std::string group;  // "transfer", "launch", "elementwise", "matmul"
    std::string name;   // "h2d_pinned", "latency", "add_float32", "sgemm"
    uint64_t size = 0;  // bytes (transfers), elements, or matrix order
    std::string unit;   // "GB/s", "us", "GFLOP/s"
    double device = 0;  // timed by the device's events: modeled on a simulated GPU
    double wall = 0;    // timed by this machine's clock: always measured
    int repetitions = 0;
    bool verified = true;  // the data came back right (copies, results)
};

// Runs everything on the runtime's current device, adding each figure to `out` as it is measured.
// progress(done, total, what) is called before each step; when it returns false the run stops
// there. Throws host::runtime_error when a runtime call fails: `out` then holds the figures
// measured before the failing step.
void run_benchmarks(host::runtime& rt, const bench_options& o, std::vector<bench_figure>& out,
                    const std::function<bool(size_t, size_t, const std::string&)>& progress);

// The sizes the transfer sweep uses: min, 4 x min, ... up to max.
std::vector<uint64_t> sweep_sizes(const bench_options& o);

}  // namespace cudabridge::cli

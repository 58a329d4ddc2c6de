#include "benchmark/runner.hpp"

#include "runtime_buffers.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

namespace cudabridge::cli {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

struct timing {
    double device_s = 0, wall_s = 0;
};

// Times `reps` runs of `work` on the default stream, after one untimed warm-up run.
template <class Work>
timing time_reps(host::runtime& rt, int reps, Work&& work) {
    work();
    host::check(rt.stream_synchronize(nullptr));
    const auto t0 = clock_type::now();
    timing t;
    t.device_s = device_seconds(rt, reps, work);  // it synchronizes: the wall time covers the work
    t.wall_s = seconds_since(t0);
    return t;
}

int repetitions(const bench_options& o, uint64_t size) {
    const uint64_t r = o.bytes_per_figure / size;
    return static_cast<int>(std::min<uint64_t>(100, std::max<uint64_t>(3, r)));
}

double rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0; }

void fill_pattern(unsigned char* p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>((i * 2654435761u + seed) >> 13);
}

cbKernelArg tensor_arg(const cbTensor& t) { return cbArgTensor(&t); }

}  // namespace

std::vector<uint64_t> sweep_sizes(const bench_options& o) {
    std::vector<uint64_t> sizes;
    for (uint64_t s = o.min_bytes; s <= o.max_bytes; s *= 4) sizes.push_back(s);
    return sizes;
}

void run_benchmarks(host::runtime& rt, const bench_options& o, std::vector<bench_figure>& out,
                    const std::function<bool(size_t, size_t, const std::string&)>& progress) {
    out.clear();
    const auto sizes = sweep_sizes(o);
    const size_t total = sizes.size() * 5 + 3;
    size_t done = 0;
    auto step = [&](const std::string& what) { return progress(done++, total, what); };

    const size_t max = sizes.empty() ? 0 : sizes.back();
    std::unique_ptr<unsigned char[]> pageable_src(new unsigned char[max]), pageable_dst(new unsigned char[max]);
    // One pinned buffer serves both directions: two of the sweep's 1 GiB would not fit the
    // IOMMU's budget on an Apple-Silicon host (the DART maps 1.5 GiB at once).
    pinned_buffer pinned(rt, max);
    device_buffer dev_a(rt, max), dev_b(rt, max);
    fill_pattern(pageable_src.get(), max, 1);
    std::memcpy(pinned.get(), pageable_src.get(), max);

    struct direction {
        const char* name;
        void* dst;
        const void* src;
        cbMemcpyKind kind;
        unsigned char* check_dst;  // host memory to verify, or null
    };
    const direction directions[] = {
        {"h2d_pageable", dev_a.get(), pageable_src.get(), cbMemcpyHostToDevice, nullptr},
        {"d2h_pageable", pageable_dst.get(), dev_a.get(), cbMemcpyDeviceToHost, pageable_dst.get()},
        {"h2d_pinned", dev_a.get(), pinned.get(), cbMemcpyHostToDevice, nullptr},
        {"d2h_pinned", pinned.get(), dev_a.get(), cbMemcpyDeviceToHost, pinned.get()},
        {"d2d", dev_b.get(), dev_a.get(), cbMemcpyDeviceToDevice, nullptr}};
    for (const auto& d : directions) {
        for (uint64_t size : sizes) {
            if (!step(std::string(d.name) + " " + std::to_string(size) + " B")) return;
            const int reps = repetitions(o, size);
            if (d.check_dst) std::memset(d.check_dst, 0, size);  // the copy back must bring every byte
            const timing t =
                time_reps(rt, reps, [&] { host::check(rt.memcpy(d.dst, d.src, size, d.kind, nullptr, true)); });
            bench_figure f{"transfer",
                           d.name,
                           size,
                           "GB/s",
                           rate(static_cast<double>(size) * reps / 1e9, t.device_s),
                           rate(static_cast<double>(size) * reps / 1e9, t.wall_s),
                           reps,
                           true};
            if (d.check_dst) f.verified = std::memcmp(d.check_dst, pageable_src.get(), size) == 0;
            out.push_back(f);
        }
    }

    if (!step("launch latency")) return;
    {
        device_buffer one(rt, sizeof(float));
        const cbTensor t = cbTensor1D(one.get(), CB_DTYPE_FLOAT32, 1);
        const cbKernelArg args[] = {tensor_arg(t), cbArgDouble(1.0)};
        const timing tm = time_reps(
            rt, o.launches, [&] { host::check(rt.launch_builtin("fill", CB_DTYPE_FLOAT32, args, 2, nullptr)); });
        out.push_back({"launch", "latency", 1, "us", tm.device_s / o.launches * 1e6, tm.wall_s / o.launches * 1e6,
                       o.launches, true});
    }

    if (!step("elementwise add")) return;
    {
        const int64_t n = o.elementwise_elements;
        const size_t bytes = static_cast<size_t>(n) * sizeof(float);
        device_buffer a(rt, bytes), b(rt, bytes), c(rt, bytes);
        const cbTensor ta = cbTensor1D(a.get(), CB_DTYPE_FLOAT32, n), tb = cbTensor1D(b.get(), CB_DTYPE_FLOAT32, n),
                       tc = cbTensor1D(c.get(), CB_DTYPE_FLOAT32, n);
        const cbKernelArg fa[] = {tensor_arg(ta), cbArgDouble(1.5)}, fb[] = {tensor_arg(tb), cbArgDouble(2.25)};
        host::check(rt.launch_builtin("fill", CB_DTYPE_FLOAT32, fa, 2, nullptr));
        host::check(rt.launch_builtin("fill", CB_DTYPE_FLOAT32, fb, 2, nullptr));
        const cbKernelArg args[] = {tensor_arg(ta), tensor_arg(tb), tensor_arg(tc)};
        const int reps = 10;
        const timing tm =
            time_reps(rt, reps, [&] { host::check(rt.launch_builtin("add", CB_DTYPE_FLOAT32, args, 3, nullptr)); });
        float probe[2] = {0, 0};
        host::check(rt.memcpy(probe, static_cast<char*>(c.get()) + bytes - sizeof probe, sizeof probe,
                              cbMemcpyDeviceToHost, nullptr, false));
        const double moved = 3.0 * static_cast<double>(bytes) * reps / 1e9;  // two reads, one write
        out.push_back({"elementwise", "add_float32", static_cast<uint64_t>(n), "GB/s", rate(moved, tm.device_s),
                       rate(moved, tm.wall_s), reps, probe[0] == 3.75f && probe[1] == 3.75f});
    }

    if (!step("matmul")) return;
    {
        const int64_t n = o.matmul_n;
        const size_t bytes = static_cast<size_t>(n * n) * sizeof(float);
        device_buffer a(rt, bytes), b(rt, bytes), c(rt, bytes);
        const cbTensor ta = square_matrix(a.get(), n), tb = square_matrix(b.get(), n), tc = square_matrix(c.get(), n);
        const cbKernelArg fa[] = {tensor_arg(ta), cbArgDouble(1.0)}, fb[] = {tensor_arg(tb), cbArgDouble(0.5)};
        host::check(rt.launch_builtin("fill", CB_DTYPE_FLOAT32, fa, 2, nullptr));
        host::check(rt.launch_builtin("fill", CB_DTYPE_FLOAT32, fb, 2, nullptr));
        const cbKernelArg args[] = {tensor_arg(ta), tensor_arg(tb), tensor_arg(tc)};
        const int reps = 5;
        const timing tm =
            time_reps(rt, reps, [&] { host::check(rt.launch_builtin("matmul", CB_DTYPE_FLOAT32, args, 3, nullptr)); });
        float probe = 0;
        host::check(rt.memcpy(&probe, c.get(), sizeof probe, cbMemcpyDeviceToHost, nullptr, false));
        const double flops = 2.0 * std::pow(static_cast<double>(n), 3) * reps / 1e9;
        out.push_back({"matmul", "sgemm", static_cast<uint64_t>(n), "GFLOP/s", rate(flops, tm.device_s),
                       rate(flops, tm.wall_s), reps, probe == 0.5f * static_cast<float>(n)});
    }
    progress(total, total, "done");  // the last call: nothing is left to stop
}

}  // namespace cudabridge::cli

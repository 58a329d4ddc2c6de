// bench_runtime_overhead: what the runtime layer (cudabridge.h over host::runtime) adds to each
// call, against the same work called straight on the GPU plugin's table in the same process.
// The work, per pair of calls: a 4 KiB host-to-device copy from pinned memory queued on a stream,
// then the built-in "add" on 1024 float32 on that stream; many pairs, one stream synchronize.
// (a) the C API: cbMemcpyAsync + cbLaunchBuiltin, with the end-to-end integrity check on and
//     off (egpu_safety_init's policy, enable_data_integrity);
// (b) direct: gpu()->memcpy_h2d + gpu()->launch_builtin on a plugin stream, holding one ticket.
// Both include the simulated GPU executing the work; the difference is the layer's cost.
// Figures are wall-clock times measured on this host; nothing is asserted.
// Usage: bench_runtime_overhead [pairs per repeat (default 4000)] [repeats per phase (default 3)]
//                               [rounds of the three phases (default 3)]
#include <cudabridge.h>
#include <cudabridge/host/runtime.hpp>
#include <egpu_safety.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace host = cudabridge::host;

constexpr size_t elements = 1024;
constexpr size_t bytes = elements * sizeof(float);  // 4 KiB
constexpr double goal_ns = 2000.0;

struct settings {
    int pairs = 4000;
    int repeats = 3;  // per phase
    int rounds = 3;
};

// ---- helpers ---------------------------------------------------------------------------------

void check_cb(cbError_t e, const char* what) {
    if (e != cbSuccess)
        throw std::runtime_error(std::string(what) + ": " + cbGetErrorString(e) + ": " + cbGetLastErrorMessage());
}

void check_egpu(EGPUError e, const char* what) {
    if (e != EGPU_OK)
        throw std::runtime_error(std::string(what) + ": " + egpu_error_string(e) + ": " + egpu_last_error_message());
}

void check_st(cb_status st, const char* what) {
    if (st != CB_OK) throw std::runtime_error(std::string(what) + " failed (status " + std::to_string(st) + ")");
}

// One path's figures, ns per call (a pair is two calls).
struct timing {
    double total = 1e300;  // `pairs` pairs then one synchronize: the caller's cost and the GPU's work
    double issue = 1e300;  // the calls alone, in batches the command ring holds (synchronized untimed)
};

timing best_of(const timing& a, const timing& b) { return {std::min(a.total, b.total), std::min(a.issue, b.issue)}; }

// How a path issues one pair and waits for its stream.
struct path_ops {
    std::function<void()> issue_pair;
    std::function<void()> synchronize;
};

constexpr int issue_batch = 100;  // pairs: their commands fit the simulated GPU's 1024-entry ring

double now_ns() {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best (smallest) of the repeats, after a warm-up (caches, allocator, worker threads).
timing measure(const settings& s, const path_ops& ops) {
    for (int i = 0; i < std::max(1, s.pairs / 10); ++i) ops.issue_pair();
    ops.synchronize();
    timing best;
    for (int r = 0; r < s.repeats; ++r) {
        const double t0 = now_ns();
        for (int i = 0; i < s.pairs; ++i) ops.issue_pair();
        ops.synchronize();
        best.total = std::min(best.total, (now_ns() - t0) / (2.0 * s.pairs));

        double issuing = 0;
        for (int done = 0; done < s.pairs; done += issue_batch) {
            const int n = std::min(issue_batch, s.pairs - done);
            const double b0 = now_ns();
            for (int i = 0; i < n; ++i) ops.issue_pair();
            issuing += now_ns() - b0;
            ops.synchronize();
        }
        best.issue = std::min(best.issue, issuing / (2.0 * s.pairs));
    }
    return best;
}

// The inputs: the copy's pinned source becomes a, b is preset, out = a + b.
void fill_inputs(float* src, std::vector<float>& b) {
    b.resize(elements);
    for (size_t i = 0; i < elements; ++i) {
        src[i] = static_cast<float>(i) * 0.25f;
        b[i] = 1.0f + static_cast<float>(i % 9);
    }
}

void verify(const float* src, const std::vector<float>& b, const std::vector<float>& out, const char* path) {
    for (size_t i = 0; i < elements; ++i)
        if (out[i] != src[i] + b[i])
            throw std::runtime_error(std::string(path) + ": wrong result at [" + std::to_string(i) + "]");
}

// ---- (a) the C API ---------------------------------------------------------------------------

void print_device() {
    cbDeviceProp p{};
    check_cb(cbGetDeviceProperties(&p, 0), "cbGetDeviceProperties");
    std::printf("device 0: %s over %s (%s)\n", p.name, p.linkName,
                p.isSimulated ? "simulated: the GPU's work runs on this host's CPU" : "hardware");
}

timing measure_c_api(const settings& s, bool integrity, bool show_device) {
    EGPUSafetyPolicy policy = egpu_default_policy();
    policy.enable_data_integrity = integrity ? 1 : 0;
    check_egpu(egpu_safety_init(&policy), "egpu_safety_init");
    // The runtime attaches to a device already connected (the direct phase leaves it up).
    int count = 0;
    check_cb(cbGetDeviceCount(&count), "cbGetDeviceCount");
    if (count == 0) check_egpu(egpu_connect(-1), "egpu_connect");
    if (show_device) print_device();

    float* src = nullptr;
    float *a = nullptr, *b = nullptr, *out = nullptr;
    std::vector<float> host_b, result(elements);
    check_cb(cbMallocHost(reinterpret_cast<void**>(&src), bytes), "cbMallocHost");
    fill_inputs(src, host_b);
    check_cb(cbMalloc(reinterpret_cast<void**>(&a), bytes), "cbMalloc");
    check_cb(cbMalloc(reinterpret_cast<void**>(&b), bytes), "cbMalloc");
    check_cb(cbMalloc(reinterpret_cast<void**>(&out), bytes), "cbMalloc");
    check_cb(cbMemcpy(b, host_b.data(), bytes, cbMemcpyHostToDevice), "cbMemcpy");
    cbStream_t stream = nullptr;
    check_cb(cbStreamCreate(&stream), "cbStreamCreate");

    const cbTensor ta = cbTensor1D(a, CB_DTYPE_FLOAT32, elements);
    const cbTensor tb = cbTensor1D(b, CB_DTYPE_FLOAT32, elements);
    const cbTensor tout = cbTensor1D(out, CB_DTYPE_FLOAT32, elements);
    const cbKernelArg args[3] = {cbArgTensor(&ta), cbArgTensor(&tb), cbArgTensor(&tout)};

    path_ops ops;
    ops.issue_pair = [&] {
        check_cb(cbMemcpyAsync(a, src, bytes, cbMemcpyHostToDevice, stream), "cbMemcpyAsync");
        check_cb(cbLaunchBuiltin("add", CB_DTYPE_FLOAT32, args, 3, stream), "cbLaunchBuiltin");
    };
    ops.synchronize = [&] { check_cb(cbStreamSynchronize(stream), "cbStreamSynchronize"); };
    const timing t = measure(s, ops);
    check_cb(cbMemcpy(result.data(), out, bytes, cbMemcpyDeviceToHost), "cbMemcpy");
    verify(src, host_b, result, "C API");

    check_cb(cbStreamDestroy(stream), "cbStreamDestroy");
    for (float* p : {a, b, out}) check_cb(cbFree(p), "cbFree");
    check_cb(cbFreeHost(src), "cbFreeHost");
    check_egpu(egpu_safety_shutdown(), "egpu_safety_shutdown");
    return t;
}

// ---- (b) direct on the plugin's table --------------------------------------------------------

timing measure_direct(const settings& s) {
    host::runtime rt;
    if (rt.device_count() == 0) throw std::runtime_error("no device: " + rt.startup_error());
    host::device& d = rt.device(0);
    host::device::ticket ticket;
    check_st(d.enter(ticket), "device::enter");
    const cb_gpu_table* g = d.gpu();
    void* inst = d.gpu_instance();
    cb_gpu_device* dev = ticket.handle();

    // Pinned source: page-aligned and registered for DMA, as cbMallocHost does.
    auto* src = static_cast<float*>(std::aligned_alloc(4096, bytes));
    if (!src) throw std::bad_alloc();
    const bool registered = CB_HAS_FIELD(g, cb_gpu_table, host_register);
    if (registered) check_st(g->host_register(inst, dev, src, bytes), "host_register");
    std::vector<float> host_b, result(elements);
    fill_inputs(src, host_b);
    uint64_t a = 0, b = 0, out = 0;
    for (uint64_t* p : {&a, &b, &out}) check_st(g->mem_alloc(inst, dev, bytes, p), "mem_alloc");
    check_st(g->memcpy_h2d(inst, dev, b, host_b.data(), bytes, nullptr), "memcpy_h2d");
    cb_gpu_stream* stream = nullptr;
    check_st(g->stream_create(inst, dev, &stream), "stream_create");

    const cbTensor ta = cbTensor1D(reinterpret_cast<void*>(a), CB_DTYPE_FLOAT32, elements);
    const cbTensor tb = cbTensor1D(reinterpret_cast<void*>(b), CB_DTYPE_FLOAT32, elements);
    const cbTensor tout = cbTensor1D(reinterpret_cast<void*>(out), CB_DTYPE_FLOAT32, elements);
    const cbKernelArg args[3] = {cbArgTensor(&ta), cbArgTensor(&tb), cbArgTensor(&tout)};
    cb_kernel_launch launch{};
    launch.struct_size = sizeof launch;
    launch.name = "add";
    launch.dtype = CB_DTYPE_FLOAT32;
    launch.args = args;
    launch.arg_count = 3;

    path_ops ops;
    ops.issue_pair = [&] {
        check_st(g->memcpy_h2d(inst, dev, a, src, bytes, stream), "memcpy_h2d");
        check_st(g->launch_builtin(inst, dev, &launch, stream), "launch_builtin");
    };
    ops.synchronize = [&] { check_st(g->stream_synchronize(inst, stream), "stream_synchronize"); };
    const timing t = measure(s, ops);
    check_st(g->memcpy_d2h(inst, dev, result.data(), out, bytes, nullptr), "memcpy_d2h");
    verify(src, host_b, result, "direct");

    check_st(g->stream_destroy(inst, stream), "stream_destroy");
    for (uint64_t p : {a, b, out}) check_st(g->mem_free(inst, dev, p), "mem_free");
    if (registered) check_st(g->host_unregister(inst, dev, src), "host_unregister");
    std::free(src);
    return t;
}

// ---- main ------------------------------------------------------------------------------------

settings parse(int argc, char** argv) {
    settings s;
    if (argc > 1) s.pairs = std::atoi(argv[1]);
    if (argc > 2) s.repeats = std::atoi(argv[2]);
    if (argc > 3) s.rounds = std::atoi(argv[3]);
    if (argc > 4 || s.pairs < 1 || s.repeats < 1 || s.rounds < 1) {
        std::fprintf(stderr, "usage: %s [pairs per repeat >= 1] [repeats per phase >= 1] [rounds >= 1]\n", argv[0]);
        std::exit(2);
    }
    return s;
}

// A private state folder, so the run neither reads nor changes the user's devices and settings.
std::filesystem::path private_home() {
    char tmpl[] = "/tmp/cb_bench_runtime_XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    setenv("CUDABRIDGE_HOME", tmpl, 1);
    setenv("CUDABRIDGE_LOG_SINKS", "sqlite", 0);  // keep the console for the figures
    return tmpl;
}

void print_row(const char* path, const timing& t, const timing& direct) {
    std::printf("  %-30s %9.0f %9.0f    %9.0f %9.0f\n", path, t.issue, t.issue - direct.issue, t.total,
                t.total - direct.total);
}

}  // namespace

int main(int argc, char** argv) {
    const settings s = parse(argc, argv);
    std::filesystem::path home;
    try {
        home = private_home();
        std::printf(
            "bench_runtime_overhead: %d pairs (4 KiB pinned H2D copy + add of 1024 float32) per repeat, "
            "one synchronize per repeat; best of %d repeats x %d rounds\n",
            s.pairs, s.repeats, s.rounds);
        // Rounds of the three phases in turn, keeping each path's best: a burst of other load on
        // this machine then spoils one round of every path rather than all of one path.
        timing direct, with_check, without_check;
        for (int round = 0; round < s.rounds; ++round) {
            direct = best_of(direct, measure_direct(s));
            with_check = best_of(with_check, measure_c_api(s, true, round == 0));
            without_check = best_of(without_check, measure_c_api(s, false, false));
        }

        std::printf(
            "wall-clock ns per call, measured on this host. issue: the calls alone (batches of %d pairs); "
            "total: %d pairs + one synchronize, the simulated GPU's work included (it runs on this host's "
            "CPU too)\n",
            issue_batch, s.pairs);
        std::printf("  %-30s %9s %9s    %9s %9s\n", "path", "issue", "added", "total", "added");
        print_row("direct: plugin table", direct, direct);
        print_row("C API, integrity check off", without_check, direct);
        print_row("C API, integrity check on", with_check, direct);
        const double added = without_check.issue - direct.issue;
        std::printf(
            "verdict: the runtime layer adds %.0f ns per call (issue time, integrity check off; goal <= %.0f "
            "ns): %s; with the integrity check on it adds %.0f ns\n",
            added, goal_ns, added <= goal_ns ? "within the goal" : "OVER the goal", with_check.issue - direct.issue);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_runtime_overhead: %s\n", e.what());
        std::error_code ec;
        if (!home.empty()) std::filesystem::remove_all(home, ec);
        return 1;
    }
    std::error_code ec;
    std::filesystem::remove_all(home, ec);
    return 0;
}

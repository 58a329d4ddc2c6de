// bench_nv_plugin: the simulated GPU's compute through the nvidia plugin's table (the usb4
// transport's simulated fabric, the userspace driver, the device model's compute engine), next to
// the same work done directly in this process: elementwise add and the sum / max reductions on N
// float32 against memcpy of the bytes they touch (the memory-bandwidth bound), and an n x n
// float32 matmul against cblas_sgemm from OpenBLAS called directly.
// Usage: bench_nv_plugin [elements] [matmul_n] [repeats] [compute_threads]
// Figures are measured on this host; the simulated GPU computes on the host's CPU cores, so they
// say how close the simulator's path gets to the host's own limits, not what a GPU would do.
#include <cudabridge/cpp/builtin_args.hpp>
#include <cudabridge/core/error.hpp>
#include <cudabridge/core/registry.hpp>
#include <cudabridge/core/store.hpp>

#include <cblas.h>

#include "bench_timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace cudabridge;
using bench::best_seconds;

void check(cb_status st, const char* what) {
    if (st != CB_OK) throw std::runtime_error(std::string(what) + ": " + core::last_error());
}

// The simulated RTX 5090 behind the default simulated enclosure, opened by the userspace driver.
struct simulated_gpu {
    std::filesystem::path dir;
    std::unique_ptr<core::store> db;
    std::unique_ptr<core::registry> reg;
    std::unique_ptr<core::plugin_instance> transport, gpu;
    void* model = nullptr;
    cb_link* link = nullptr;
    cb_gpu_device* dev = nullptr;

    const cb_gpu_table* g() const { return gpu->gpu(); }
    void* gh() const { return gpu->handle(); }

    explicit simulated_gpu(unsigned compute_threads) {
        char tmpl[] = "/tmp/cb_bench_nv_XXXXXX";
        if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
        dir = tmpl;
        db = std::make_unique<core::store>(dir / "cb.db");
        core::search_options o;
        o.extra_paths = {CB_BUILD_PLUGIN_DIR};
        o.use_environment = false;
        o.privileged = false;
        o.installed_dir = "/nonexistent";
        reg = std::make_unique<core::registry>(*db, o);
        reg->scan();
        transport = reg->create(CB_KIND_TRANSPORT, "usb4", {{"backend", "sim"}});
        gpu = reg->create(
            CB_KIND_GPU, "nvidia",
            {{"cuda_library", "/nonexistent/libcuda.so.1"}, {"compute_threads", std::to_string(compute_threads)}});
        auto* t = transport->transport();
        void* th = transport->handle();
        const std::string enclosure = find(CB_ENDPOINT_DEVICE_ROUTER);
        const cb_endpoint_model_table* table = nullptr;
        std::string request = R"({"key":"rtx-5090","device_id":")" + enclosure + "\"}";
        check(g()->create_endpoint_model(gh(), request.c_str(), &model, &table), "create_endpoint_model");
        check(t->attach_endpoint_model(th, enclosure.c_str(), table, model), "attach_endpoint_model");
        check(t->authorize(th, enclosure.c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), "authorize");
        // The PCI function appears behind the enclosure once it is authorized.
        check(t->open_link(th, find(CB_ENDPOINT_PCI_FUNCTION).c_str(), &link), "open_link");
        cb_gpu_open_params p{};
        p.struct_size = sizeof p;
        p.ordinal = -1;
        p.transport = t;
        p.transport_instance = th;
        p.link = link;
        check(g()->open_device(gh(), &p, &dev), "open_device");
    }
    ~simulated_gpu() {
        if (dev) g()->close_device(gh(), dev);
        if (link) transport->transport()->close_link(transport->handle(), link);
        gpu.reset();
        transport.reset();
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }

    // The id of the first endpoint of `kind` on the fabric.
    std::string find(cb_endpoint_kind kind) {
        auto* t = transport->transport();
        size_t count = 0;
        check(t->enumerate(transport->handle(), nullptr, 0, &count), "enumerate");
        std::vector<cb_endpoint_info> eps(count);
        for (auto& e : eps) e.struct_size = sizeof e;
        check(t->enumerate(transport->handle(), eps.data(), eps.size(), &count), "enumerate");
        for (const auto& e : eps)
            if (e.kind == kind) return e.id;
        throw std::runtime_error("no endpoint of kind " + std::to_string(kind) + " on the simulated fabric");
    }

    uint64_t alloc(uint64_t bytes) {
        uint64_t p = 0;
        check(g()->mem_alloc(gh(), dev, bytes, &p), "mem_alloc");
        return p;
    }
    void launch(const char* name, cb_dtype dtype, const std::vector<cb_kernel_arg>& args) {
        const cb_kernel_launch l = sdk::builtin_launch(name, dtype, args);
        check(g()->launch_builtin(gh(), dev, &l, nullptr), name);
    }
    void download(void* dst, uint64_t src, size_t bytes) {
        check(g()->memcpy_d2h(gh(), dev, dst, src, bytes, nullptr), "memcpy_d2h");
    }
};

// memcpy of `bytes`, split across `threads` threads.
void parallel_memcpy(char* dst, const char* src, size_t bytes, unsigned threads) {
    std::vector<std::thread> pool;
    const size_t chunk = (bytes + threads - 1) / threads;
    for (unsigned i = 0; i < threads; ++i) {
        const size_t lo = std::min(bytes, i * chunk), hi = std::min(bytes, lo + chunk);
        pool.emplace_back([=] { std::memcpy(dst + lo, src + lo, hi - lo); });
    }
    for (auto& t : pool) t.join();
}

int run(int64_t n, int mm, int reps, unsigned compute_threads) {
    simulated_gpu gpu(compute_threads);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    const size_t bytes = static_cast<size_t>(n) * 4;
    std::printf(
        "bench_nv_plugin: %lld float32 (%.1f MiB per array), %d repeats; measured on this host "
        "(the simulated GPU computes on the host's %u cores)\n",
        static_cast<long long>(n), double(bytes) / (1 << 20), reps, threads);

    // The bound: memcpy of an array, single-threaded and split across all cores; the faster wins.
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    double t1 = best_seconds(reps, [&] { std::memcpy(dst.data(), src.data(), bytes); });
    double tn = best_seconds(reps, [&] { parallel_memcpy(dst.data(), src.data(), bytes, threads); });
    const double memcpy_gbs = 2.0 * double(bytes) / std::min(t1, tn) / 1e9;  // read + write
    std::printf("memcpy: 1 thread %.3f ms, %u threads %.3f ms -> bound %.2f GB/s (read+write)\n", t1 * 1e3, threads,
                tn * 1e3, memcpy_gbs);

    const uint64_t a = gpu.alloc(bytes), b = gpu.alloc(bytes), c = gpu.alloc(bytes), s = gpu.alloc(8);
    auto da = sdk::contiguous_tensor(a, CB_DTYPE_FLOAT32, {n}), db = sdk::contiguous_tensor(b, CB_DTYPE_FLOAT32, {n}),
         dc = sdk::contiguous_tensor(c, CB_DTYPE_FLOAT32, {n});
    auto ds = sdk::contiguous_tensor(s, CB_DTYPE_FLOAT32, {});
    gpu.launch("random_uniform", CB_DTYPE_FLOAT32, {sdk::tensor_arg(da), sdk::uint64_arg(1), sdk::uint64_arg(0)});
    gpu.launch("random_uniform", CB_DTYPE_FLOAT32, {sdk::tensor_arg(db), sdk::uint64_arg(2), sdk::uint64_arg(0)});

    double t_add = best_seconds(reps, [&] {
        gpu.launch("add", CB_DTYPE_FLOAT32, {sdk::tensor_arg(da), sdk::tensor_arg(db), sdk::tensor_arg(dc)});
    });
    float x[1], y[1], z[1];
    gpu.download(x, a + bytes / 2, 4);
    gpu.download(y, b + bytes / 2, 4);
    gpu.download(z, c + bytes / 2, 4);
    if (z[0] != x[0] + y[0]) {
        std::puts("add: wrong result");
        return 1;
    }
    const double bound_add = 3.0 * double(bytes) / (memcpy_gbs * 1e9);
    std::printf("add:    %.3f ms, %.2f GB/s; memcpy bound %.3f ms -> ratio %.2f (goal >= 0.8)\n", t_add * 1e3,
                3.0 * double(bytes) / t_add / 1e9, bound_add * 1e3, bound_add / t_add);

    const double bound_read = double(bytes) / (memcpy_gbs * 1e9);
    for (const char* op : {"sum", "max"}) {
        double t = best_seconds(reps, [&] {
            gpu.launch(op, CB_DTYPE_FLOAT32,
                       {sdk::tensor_arg(da), sdk::tensor_arg(ds), sdk::int64_arg(CB_REDUCE_ALL_AXES)});
        });
        float r = 0;
        gpu.download(&r, s, 4);
        bool ok = std::strcmp(op, "sum") == 0 ? std::fabs(r - 0.5 * double(n)) < 0.01 * double(n) + 10
                                              : (r < 1.0f && r > 0.5f);
        if (!ok) {
            std::printf("%s: wrong result %g\n", op, double(r));
            return 1;
        }
        std::printf("%s:    %.3f ms, %.2f GB/s; memcpy-read bound %.3f ms -> ratio %.2f (goal >= 0.8)\n", op, t * 1e3,
                    double(bytes) / t / 1e9, bound_read * 1e3, bound_read / t);
    }

    // matmul: the same operands on the host for cblas_sgemm, uploaded for the plugin.
    const size_t mbytes = size_t(mm) * mm * 4;
    std::vector<float> hx(size_t(mm) * mm), hy(size_t(mm) * mm), hz(size_t(mm) * mm), hz_plugin(size_t(mm) * mm);
    for (size_t i = 0; i < hx.size(); ++i) {
        hx[i] = float((i * 7919) % 1000) / 1000.0f;
        hy[i] = float((i * 104729) % 1000) / 1000.0f;
    }
    const uint64_t mx = gpu.alloc(mbytes), my = gpu.alloc(mbytes), mz = gpu.alloc(mbytes);
    check(gpu.g()->memcpy_h2d(gpu.gh(), gpu.dev, mx, hx.data(), mbytes, nullptr), "memcpy_h2d");
    check(gpu.g()->memcpy_h2d(gpu.gh(), gpu.dev, my, hy.data(), mbytes, nullptr), "memcpy_h2d");
    auto direct = [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mm, mm, mm, 1.0f, hx.data(), mm, hy.data(), mm, 0.0f,
                    hz.data(), mm);
    };
    direct();  // warm OpenBLAS's threads
    auto dx = sdk::contiguous_tensor(mx, CB_DTYPE_FLOAT32, {mm, mm}),
         dy = sdk::contiguous_tensor(my, CB_DTYPE_FLOAT32, {mm, mm}),
         dz = sdk::contiguous_tensor(mz, CB_DTYPE_FLOAT32, {mm, mm});
    double t_plugin = 1e30, t_direct = 1e30;
    for (int r = 0; r < reps; ++r) {  // interleaved, so both see the same host conditions
        t_direct = std::min(t_direct, best_seconds(1, direct));
        t_plugin = std::min(
            t_plugin, best_seconds(1, [&] {
                gpu.launch("matmul", CB_DTYPE_FLOAT32, {sdk::tensor_arg(dx), sdk::tensor_arg(dy), sdk::tensor_arg(dz)});
            }));
    }
    gpu.download(hz_plugin.data(), mz, mbytes);
    if (std::memcmp(hz.data(), hz_plugin.data(), mbytes) != 0) {
        std::puts("matmul: differs from cblas_sgemm");
        return 1;
    }
    const double flops = 2.0 * mm * mm * mm;
    std::printf(
        "matmul %dx%d float32: plugin %.3f ms (%.1f GFLOP/s), cblas_sgemm direct %.3f ms (%.1f GFLOP/s) "
        "-> ratio %.2f (goal >= 0.8)\n",
        mm, mm, t_plugin * 1e3, flops / t_plugin / 1e9, t_direct * 1e3, flops / t_direct / 1e9, t_direct / t_plugin);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const int64_t n = argc > 1 ? std::atoll(argv[1]) : 16 * 1024 * 1024;
    const int mm = argc > 2 ? std::atoi(argv[2]) : 1024;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 10;
    const int compute_threads = argc > 4 ? std::atoi(argv[4]) : 0;
    if (n <= 0 || mm <= 0 || reps <= 0 || compute_threads < 0) {
        std::fprintf(stderr,
                     "usage: bench_nv_plugin [elements > 0] [matmul_n > 0] [repeats > 0] [compute_threads >= 0]\n");
        return 2;
    }
    try {
        return run(n, mm, reps, static_cast<unsigned>(compute_threads));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_nv_plugin: %s\n", e.what());
        return 1;
    }
}

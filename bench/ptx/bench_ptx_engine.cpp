// The PTX engine against the same algorithms in plain C++ built for this machine (-O3
// -march=native: reference_kernels.cpp), same data, same number of threads, wall clock: saxpy, a
// shared-memory tree reduction, a block scan, a histogram with shared atomics, a 2D stencil and a
// tiled sgemm (with OpenBLAS beside it), the first-load compile time of every corpus module, and
// the host cost of one cached launch of a one-block kernel. Every result is compared bit for bit
// with the C++ one. Figures are measured.
//   usage: bench_ptx_engine CORPUS_DIR [elements] [repeats] [sgemm size]
#include "reference_kernels.hpp"
#include "sim/ptx/program.hpp"

#include "common/kernels/engine.hpp"

#include <cudabridge/cpp/builtin_args.hpp>

#ifdef CB_BENCH_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace cudabridge::nv;
namespace bench = cudabridge::bench;
namespace sdk = cudabridge::sdk;
using clock_type = std::chrono::steady_clock;

namespace {

std::string read(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

template <typename F>
double best_ms(int repeats, F&& f) {
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = clock_type::now();
        f();
        best = std::min(best, std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    }
    return best;
}

struct vram_buffer {
    static constexpr uint64_t base = 0x200000000ull;
    std::vector<uint8_t> bytes;
    explicit vram_buffer(uint64_t n) : bytes(n) {}
    ptx::device_memory memory() { return {bytes.data(), base, bytes.size()}; }
    float* f32(uint64_t at) { return reinterpret_cast<float*>(bytes.data() + (at - base)); }
};

ptx::launch_request request(const ptx::program& p, const char* kernel, uint32_t grid, uint32_t block,
                            const std::vector<cb_kernel_arg>& args) {
    ptx::launch_request r;
    r.kernel = static_cast<size_t>(p.find(kernel));
    r.grid[0] = grid;
    r.block[0] = block;
    std::string error;
    if (p.pack_arguments(r.kernel, args.data(), args.size(), r.params, error) != CB_OK) {
        std::fprintf(stderr, "%s\n", error.c_str());
        std::exit(1);
    }
    return r;
}

// A launch of `kernel` over (grid x grid_y) blocks of (block x block_y) threads with `args`.
ptx::launch_request request_2d(const ptx::program& p, const char* kernel, uint32_t grid, uint32_t grid_y,
                               uint32_t block, uint32_t block_y, const std::vector<cb_kernel_arg>& args) {
    ptx::launch_request r = request(p, kernel, grid, block, args);
    r.grid[1] = grid_y;
    r.block[1] = block_y;
    return r;
}

std::unique_ptr<ptx::program> load_or_exit(const std::filesystem::path& file) {
    std::string error;
    auto p = ptx::program::load(read(file), error);
    if (!p) {
        std::fprintf(stderr, "%s: %s\n", file.c_str(), error.c_str());
        std::exit(1);
    }
    return p;
}

// One line of the table: engine time over C++ time (lower is better; 1.00 is par).
void report(const char* what, double engine_ms, double cpp_ms, const char* goal) {
    std::printf("%-10s PTX %9.2f ms  C++ %9.2f ms  PTX/C++ %5.2fx (goal <= %s)\n", what, engine_ms, cpp_ms,
                engine_ms / cpp_ms, goal);
}

template <typename T>
bool same(const char* what, const T* engine_result, const T* cpp_result, uint64_t count) {
    for (uint64_t i = 0; i < count; ++i)
        if (std::memcmp(&engine_result[i], &cpp_result[i], sizeof(T)) != 0) {
            std::fprintf(stderr, "%s: element %llu differs: %g vs %g\n", what, (unsigned long long)i,
                         double(engine_result[i]), double(cpp_result[i]));
            return false;
        }
    return true;
}

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string one, five;
    f >> one >> five;
    return one.empty() ? "unknown" : one + " " + five;
}

}  // namespace

int main(int argc, char** argv) {
    // The compile times below are compiles: machine code cached on disk by an earlier run
    // (jit_cache.hpp) would make them load times.
    setenv("CUDABRIDGE_PTX_CACHE", "off", 1);
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR [elements] [repeats] [sgemm size]\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    const int n = argc > 2 ? std::atoi(argv[2]) : 16 << 20;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
    const int gemm = argc > 4 ? std::atoi(argv[4]) : 1024;
    kernels::engine engine;
    const ptx::block_runner on_engine = [&](uint64_t count, const std::function<void(uint64_t, uint64_t)>& fn) {
        engine.parallel_for(static_cast<int64_t>(count), 1,
                            [&](int64_t b, int64_t e) { fn(uint64_t(b), uint64_t(e)); });
    };
    std::printf(
        "PTX engine vs plain C++ -O3 -march=native, %d elements, %u threads, best of %d (wall clock, measured; "
        "load average %s)\n",
        n, engine.threads(), repeats, load_average().c_str());

    // First-launch compile time of every module: load (parse, lay out, lower every kernel) and
    // the compile of each kernel for a 256-thread block, as its first launch does. Wall clock, and
    // the compiling thread's CPU time, which other work on a shared machine does not inflate.
    std::vector<double> compile, compile_cpu;
    std::string slowest;
    double slowest_ms = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".ptx") continue;
        std::string error;
        const auto t0 = clock_type::now();
        const double c0 = thread_cpu_ms();
        auto p = ptx::program::load(read(entry.path()), error);
        const uint32_t block[3] = {256, 1, 1};
        for (size_t k = 0; p && k < p->kernel_count(); ++k)
            if (!p->code_for(k, p->launch_shape(k, block, 0), error)) p.reset();
        const double cpu = thread_cpu_ms() - c0;
        const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
        if (p) compile.push_back(ms), compile_cpu.push_back(cpu);
        if (p && ms > slowest_ms) slowest_ms = ms, slowest = entry.path().filename().string();
    }
    std::sort(compile.begin(), compile.end());
    std::sort(compile_cpu.begin(), compile_cpu.end());
    auto median = [](const std::vector<double>& v) { return v.empty() ? 0.0 : v[v.size() / 2]; };
    std::printf(
        "compile  %zu modules, load + first launch of each kernel: median %.1f ms wall (%.1f ms thread CPU), max %.1f ms, %s (goal <= 50 ms)\n",
        compile.size(), median(compile), median(compile_cpu), slowest_ms, slowest.c_str());

    auto saxpy = load_or_exit(dir / "saxpy.ptx");
    vram_buffer vram(uint64_t(n) * 12 + (1u << 20));
    const uint64_t dx = vram_buffer::base, dy = dx + uint64_t(n) * 4, dz = dy + uint64_t(n) * 4;
    for (int i = 0; i < n; ++i) vram.f32(dx)[i] = float(i % 1000), vram.f32(dy)[i] = 1.0f;
    std::vector<float> hx(vram.f32(dx), vram.f32(dx) + n), hy(n, 1.0f);
    {
        auto rs = request(*saxpy, "saxpy", (n + 255) / 256, 256,
                          {sdk::int64_arg(n), sdk::float64_arg(2.0), sdk::device_ptr_arg(dx), sdk::device_ptr_arg(dy)});
        // One pass each to compare (y = 2x + 1), then the timed repeats.
        saxpy->launch(rs, vram.memory(), on_engine, {});
        bench::saxpy(n, 2.0f, hx.data(), hy.data(), engine);
        if (!same("saxpy", vram.f32(dy), hy.data(), uint64_t(n))) return 1;
        const double engine_ms = best_ms(repeats, [&] { saxpy->launch(rs, vram.memory(), on_engine, {}); });
        const double cpp_ms = best_ms(repeats, [&] { bench::saxpy(n, 2.0f, hx.data(), hy.data(), engine); });
        report("saxpy", engine_ms, cpp_ms, "1.2x");
    }

    const int blocks = (n + 255) / 256;
    {
        auto reduce = load_or_exit(dir / "reduce_sum.ptx");
        auto rr = request(*reduce, "reduce_sum", blocks, 256,
                          {sdk::device_ptr_arg(dx), sdk::device_ptr_arg(dz), sdk::int64_arg(n)});
        std::vector<float> partial(blocks);
        const double engine_ms = best_ms(repeats, [&] { reduce->launch(rr, vram.memory(), on_engine, {}); });
        const double cpp_ms = best_ms(repeats, [&] { bench::reduce_blocks(n, hx.data(), partial.data(), engine); });
        if (!same("reduce", vram.f32(dz), partial.data(), uint64_t(blocks))) return 1;
        report("reduce", engine_ms, cpp_ms, "1.3x");
    }
    {
        // Integers in the first two regions: a scan of x's values, block totals after them.
        auto scan = load_or_exit(dir / "block_scan.ptx");
        auto* in = reinterpret_cast<int*>(vram.f32(dx));
        for (int i = 0; i < n; ++i) in[i] = i % 7 - 3;
        std::vector<int> hin(in, in + n), hout(n), htotals(blocks);
        const uint64_t dtotals = dz;
        auto rq = request(
            *scan, "inclusive_scan", blocks, 256,
            {sdk::device_ptr_arg(dx), sdk::device_ptr_arg(dy), sdk::device_ptr_arg(dtotals), sdk::int64_arg(n)});
        const double engine_ms = best_ms(repeats, [&] { scan->launch(rq, vram.memory(), on_engine, {}); });
        const double cpp_ms =
            best_ms(repeats, [&] { bench::scan_blocks(n, hin.data(), hout.data(), htotals.data(), engine); });
        if (!same("scan", reinterpret_cast<int*>(vram.f32(dy)), hout.data(), uint64_t(n)) ||
            !same("scan totals", reinterpret_cast<int*>(vram.f32(dtotals)), htotals.data(), uint64_t(blocks)))
            return 1;
        report("scan", engine_ms, cpp_ms, "2x");
    }
    {
        // Bytes of x's region, 256 blocks of 256 threads striding over them, bins after them.
        auto histogram = load_or_exit(dir / "histogram.ptx");
        auto* data = reinterpret_cast<unsigned char*>(vram.f32(dx));
        for (int i = 0; i < n; ++i) data[i] = static_cast<unsigned char>((i * 2654435761u) >> 24);
        std::vector<unsigned char> hdata(data, data + n);
        std::vector<unsigned> hbins(256);
        auto* bins = reinterpret_cast<unsigned*>(vram.f32(dz));
        auto rh = request(*histogram, "histogram256", 256, 256,
                          {sdk::device_ptr_arg(dx), sdk::int64_arg(n), sdk::device_ptr_arg(dz)});
        const double engine_ms = best_ms(repeats, [&] {
            std::fill(bins, bins + 256, 0u);
            histogram->launch(rh, vram.memory(), on_engine, {});
        });
        const double cpp_ms = best_ms(repeats, [&] {
            std::fill(hbins.begin(), hbins.end(), 0u);
            bench::histogram256(n, hdata.data(), hbins.data(), engine);
        });
        if (!same("histogram", bins, hbins.data(), 256)) return 1;
        report("histogram", engine_ms, cpp_ms, "2x");
    }
    {
        // A square of about n floats: x's region in, y's out.
        const int side = std::max(3, static_cast<int>(std::sqrt(double(n))));
        auto stencil = load_or_exit(dir / "stencil2d.ptx");
        for (int i = 0; i < side * side; ++i) vram.f32(dx)[i] = float((i * 37) % 101) * 0.125f;
        std::vector<float> hin(vram.f32(dx), vram.f32(dx) + side * side), hout(size_t(side) * side);
        const uint32_t tiles = static_cast<uint32_t>((side + 15) / 16);
        auto rt = request_2d(*stencil, "stencil5", tiles, tiles, 16, 16,
                             {sdk::device_ptr_arg(dx), sdk::device_ptr_arg(dy), sdk::int64_arg(side),
                              sdk::int64_arg(side), sdk::float64_arg(0.5), sdk::float64_arg(0.125)});
        const double engine_ms = best_ms(repeats, [&] { stencil->launch(rt, vram.memory(), on_engine, {}); });
        const double cpp_ms =
            best_ms(repeats, [&] { bench::stencil5(side, side, 0.5f, 0.125f, hin.data(), hout.data(), engine); });
        if (!same("stencil", vram.f32(dy), hout.data(), uint64_t(side) * side)) return 1;
        report("stencil", engine_ms, cpp_ms, "2x");
    }

    // Tiled sgemm gemm x gemm x gemm: the corpus kernel, the same tiles in C++, and OpenBLAS.
    auto sgemm = load_or_exit(dir / "sgemm_tiled.ptx");
    const uint64_t g2 = uint64_t(gemm) * gemm;
    vram_buffer gv(g2 * 12 + (1u << 20));
    const uint64_t dA = vram_buffer::base, dB = dA + g2 * 4, dC = dB + g2 * 4;
    std::vector<float> hA(g2), hB(g2), hC(g2, 0.0f), blasC(g2, 0.0f);
    for (uint64_t i = 0; i < g2; ++i) hA[i] = float(i % 17) * 0.25f, hB[i] = float(i % 13) * 0.5f - 3.0f;
    std::memcpy(gv.f32(dA), hA.data(), g2 * 4);
    std::memcpy(gv.f32(dB), hB.data(), g2 * 4);
    const auto gtiles = static_cast<uint32_t>((gemm + 15) / 16);
    auto rg =
        request_2d(*sgemm, "sgemm_tiled", gtiles, gtiles, 16, 16,
                   {sdk::int64_arg(gemm), sdk::int64_arg(gemm), sdk::int64_arg(gemm), sdk::float64_arg(1.0),
                    sdk::device_ptr_arg(dA), sdk::device_ptr_arg(dB), sdk::float64_arg(0.0), sdk::device_ptr_arg(dC)});
    const int gemm_repeats = std::max(1, repeats / 2);
    const double ptx_gemm = best_ms(gemm_repeats, [&] { sgemm->launch(rg, gv.memory(), on_engine, {}); });
    const double cpp_gemm = best_ms(gemm_repeats, [&] {
        bench::sgemm_tiled(gemm, gemm, gemm, 1.0f, hA.data(), hB.data(), 0.0f, hC.data(), engine);
    });
    if (!same("sgemm", gv.f32(dC), hC.data(), g2)) return 1;
    report("sgemm", ptx_gemm, cpp_gemm, "1.5x");
#ifdef CB_BENCH_OPENBLAS
    const double blas_gemm = best_ms(gemm_repeats, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, gemm, gemm, gemm, 1.0f, hA.data(), gemm, hB.data(), gemm,
                    0.0f, blasC.data(), gemm);
    });
    std::printf("%-10s OpenBLAS %.2f ms: the tiled PTX kernel takes %.1fx its time\n", "", blas_gemm,
                ptx_gemm / blas_gemm);
#endif

    // One cached launch of a one-block saxpy (256 elements): the host cost per launch.
    auto small =
        request(*saxpy, "saxpy", 1, 256,
                {sdk::int64_arg(256), sdk::float64_arg(2.0), sdk::device_ptr_arg(dx), sdk::device_ptr_arg(dy)});
    const int launches = 2000;
    const double small_ms = best_ms(repeats, [&] {
        for (int i = 0; i < launches; ++i) saxpy->launch(small, vram.memory(), on_engine, {});
    });
    std::printf("launch   one block of 256: %.2f us per cached launch (goal <= 10 us)\n", small_ms * 1000.0 / launches);
    return 0;
}

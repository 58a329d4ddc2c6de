// The PTX engine against plain C++ compiled -O3, same data, same number of threads, wall clock:
// saxpy, a shared-memory tree reduction, and the first-load compile time of every corpus module;
// plus the host cost of one cached launch of a one-block kernel. Figures are measured.
//   usage: bench_ptx_engine CORPUS_DIR [elements] [repeats]
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
#include <sstream>
#include <string>
#include <vector>

using namespace cudabridge::nv;
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

__attribute__((noinline)) void saxpy_cpp(int n, float a, const float* x, float* y, kernels::engine& e) {
    e.parallel_for(n, 65536, [&](int64_t b, int64_t end) {
        for (int64_t i = b; i < end; ++i) y[i] = std::fma(a, x[i], y[i]);
    });
}

// The same tree per block of 256 as the kernel.
__attribute__((noinline)) void reduce_cpp(int n, const float* in, float* partial, kernels::engine& e) {
    const int blocks = (n + 255) / 256;
    e.parallel_for(blocks, 64, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
            float s[256];
            for (int t = 0; t < 256; ++t) s[t] = b * 256 + t < n ? in[b * 256 + t] : 0.0f;
            for (int stride = 128; stride > 0; stride >>= 1)
                for (int t = 0; t < stride; ++t) s[t] += s[t + stride];
            partial[b] = s[0];
        }
    });
}

// The kernel's algorithm in plain C++: per 16x16 tile of C, 16-wide slabs of A and B copied to
// local tiles, then the tile products accumulated in the same order as each thread's acc.
__attribute__((noinline)) void sgemm_tiled_cpp(int M, int N, int K, float alpha, const float* A, const float* B,
                                               float beta, float* C, kernels::engine& e) {
    constexpr int T = 16;
    const int tiles_x = (N + T - 1) / T, tiles_y = (M + T - 1) / T;
    e.parallel_for(int64_t(tiles_x) * tiles_y, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
            const int by = int(t / tiles_x), bx = int(t % tiles_x);
            float acc[T][T] = {}, As[T][T], Bs[T][T];
            for (int k0 = 0; k0 < K; k0 += T) {
                for (int ty = 0; ty < T; ++ty)
                    for (int tx = 0; tx < T; ++tx) {
                        const int row = by * T + ty, col = bx * T + tx, ak = k0 + tx, bk = k0 + ty;
                        As[ty][tx] = row < M && ak < K ? A[row * K + ak] : 0.0f;
                        Bs[ty][tx] = bk < K && col < N ? B[bk * N + col] : 0.0f;
                    }
                for (int ty = 0; ty < T; ++ty)
                    for (int k = 0; k < T; ++k)
                        for (int tx = 0; tx < T; ++tx) acc[ty][tx] += As[ty][k] * Bs[k][tx];
            }
            for (int ty = 0; ty < T; ++ty)
                for (int tx = 0; tx < T; ++tx) {
                    const int row = by * T + ty, col = bx * T + tx;
                    if (row < M && col < N) C[row * N + col] = alpha * acc[ty][tx] + beta * C[row * N + col];
                }
        }
    });
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
    std::printf("PTX engine vs plain C++ -O3, %d elements, %u threads, best of %d (wall clock, measured)\n", n,
                engine.threads(), repeats);

    // First-launch compile time of every module: load (parse, lay out, lower every kernel) and
    // the compile of each kernel for a 256-thread block, as its first launch does. Wall clock, and
    // the compiling thread's CPU time, which other work on a shared machine does not inflate.
    std::vector<double> compile, compile_cpu;
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
    }
    std::sort(compile.begin(), compile.end());
    std::sort(compile_cpu.begin(), compile_cpu.end());
    auto median = [](const std::vector<double>& v) { return v.empty() ? 0.0 : v[v.size() / 2]; };
    std::printf(
        "compile  %zu modules, load + first launch of each kernel: median %.1f ms wall (%.1f ms thread CPU), max %.1f ms (goal <= 50 ms)\n",
        compile.size(), median(compile), median(compile_cpu), compile.empty() ? 0.0 : compile.back());

    std::string error;
    auto saxpy = ptx::program::load(read(dir / "saxpy.ptx"), error);
    auto reduce = ptx::program::load(read(dir / "reduce_sum.ptx"), error);
    if (!saxpy || !reduce) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    vram_buffer vram(uint64_t(n) * 8 + (1u << 20));
    const uint64_t dx = vram_buffer::base, dy = dx + uint64_t(n) * 4;
    for (int i = 0; i < n; ++i) vram.f32(dx)[i] = float(i % 1000), vram.f32(dy)[i] = 1.0f;
    std::vector<float> hx(vram.f32(dx), vram.f32(dx) + n), hy(n, 1.0f);
    auto rs = request(*saxpy, "saxpy", (n + 255) / 256, 256,
                      {sdk::int64_arg(n), sdk::float64_arg(2.0), sdk::device_ptr_arg(dx), sdk::device_ptr_arg(dy)});
    const double ptx_saxpy = best_ms(repeats, [&] { saxpy->launch(rs, vram.memory(), on_engine, {}); });
    const double cpp_saxpy = best_ms(repeats, [&] { saxpy_cpp(n, 2.0f, hx.data(), hy.data(), engine); });
    std::printf("saxpy    PTX %8.2f ms  C++ %8.2f ms  ratio %.2fx (goal >= 0.5x)\n", ptx_saxpy, cpp_saxpy,
                cpp_saxpy / ptx_saxpy);

    const int blocks = (n + 255) / 256;
    const uint64_t dpart = dy;
    auto rr = request(*reduce, "reduce_sum", blocks, 256,
                      {sdk::device_ptr_arg(dx), sdk::device_ptr_arg(dpart), sdk::int64_arg(n)});
    std::vector<float> partial(blocks);
    const double ptx_reduce = best_ms(repeats, [&] { reduce->launch(rr, vram.memory(), on_engine, {}); });
    const double cpp_reduce = best_ms(repeats, [&] { reduce_cpp(n, hx.data(), partial.data(), engine); });
    std::printf("reduce   PTX %8.2f ms  C++ %8.2f ms  ratio %.2fx (goal >= 0.3x)\n", ptx_reduce, cpp_reduce,
                cpp_reduce / ptx_reduce);
    for (int b = 0; b < blocks; ++b)
        if (vram.f32(dpart)[b] != partial[b]) {
            std::fprintf(stderr, "reduce: block %d differs: %g vs %g\n", b, vram.f32(dpart)[b], partial[b]);
            return 1;
        }

    // Tiled sgemm gemm x gemm x gemm: the corpus kernel, the same tiles in C++, and OpenBLAS.
    auto sgemm = ptx::program::load(read(dir / "sgemm_tiled.ptx"), error);
    if (!sgemm) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    const uint64_t g2 = uint64_t(gemm) * gemm;
    vram_buffer gv(g2 * 12 + (1u << 20));
    const uint64_t dA = vram_buffer::base, dB = dA + g2 * 4, dC = dB + g2 * 4;
    std::vector<float> hA(g2), hB(g2), hC(g2, 0.0f), blasC(g2, 0.0f);
    for (uint64_t i = 0; i < g2; ++i) hA[i] = float(i % 17) * 0.25f, hB[i] = float(i % 13) * 0.5f - 3.0f;
    std::memcpy(gv.f32(dA), hA.data(), g2 * 4);
    std::memcpy(gv.f32(dB), hB.data(), g2 * 4);
    ptx::launch_request rg;
    rg.kernel = 0;
    rg.grid[0] = rg.grid[1] = static_cast<uint32_t>((gemm + 15) / 16);
    rg.block[0] = rg.block[1] = 16;
    const std::vector<cb_kernel_arg> gargs = {sdk::int64_arg(gemm),  sdk::int64_arg(gemm),    sdk::int64_arg(gemm),
                                              sdk::float64_arg(1.0), sdk::device_ptr_arg(dA), sdk::device_ptr_arg(dB),
                                              sdk::float64_arg(0.0), sdk::device_ptr_arg(dC)};
    if (sgemm->pack_arguments(0, gargs.data(), gargs.size(), rg.params, error) != CB_OK) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    const int gemm_repeats = std::max(1, repeats / 2);
    const double ptx_gemm = best_ms(gemm_repeats, [&] { sgemm->launch(rg, gv.memory(), on_engine, {}); });
    const double cpp_gemm = best_ms(
        gemm_repeats, [&] { sgemm_tiled_cpp(gemm, gemm, gemm, 1.0f, hA.data(), hB.data(), 0.0f, hC.data(), engine); });
    for (uint64_t i = 0; i < g2; ++i)
        if (gv.f32(dC)[i] != hC[i]) {
            std::fprintf(stderr, "sgemm: element %llu differs: %g vs %g\n", (unsigned long long)i, gv.f32(dC)[i],
                         hC[i]);
            return 1;
        }
    std::printf("sgemm    %d^3 PTX %8.2f ms  C++ tiled %8.2f ms  ratio %.2fx (goal >= 0.25x)", gemm, ptx_gemm, cpp_gemm,
                cpp_gemm / ptx_gemm);
#ifdef CB_BENCH_OPENBLAS
    const double blas_gemm = best_ms(gemm_repeats, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, gemm, gemm, gemm, 1.0f, hA.data(), gemm, hB.data(), gemm,
                    0.0f, blasC.data(), gemm);
    });
    std::printf("  OpenBLAS %8.2f ms (for scale)", blas_gemm);
#endif
    std::printf("\n");

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

// bench_nv_kernels: elementwise add and sum on N float32 (default 16M) against memcpy of the bytes
// they touch, and an n x n float32 matmul through the library against cblas_sgemm called directly.
// Usage: bench_nv_kernels [elements] [matmul_n] [repeats] [threads]
// Each figure is the best of `repeats` runs (the least-disturbed one on a shared host).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cblas.h>

#include "common/kernels/elementwise.hpp"
#include "common/kernels/matmul.hpp"
#include "common/kernels/reduce.hpp"
#include "common/kernels/tensor.hpp"

#include "bench_timing.hpp"

using namespace cudabridge::nv::kernels;
using cudabridge::bench::best_seconds;

int main(int argc, char** argv) {
    std::string error;
    const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 16 * 1024 * 1024;
    const int mm = argc > 2 ? std::atoi(argv[2]) : 1024;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 10;
    const unsigned threads = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : 0;
    engine eng(threads);
    const double mib = double(n) * 4 / (1024.0 * 1024.0);
    std::printf(
        "bench_nv_kernels: %lld float32 (%.1f MiB per array), %d repeats, %u engine threads; "
        "measured on this host\n",
        static_cast<long long>(n), mib, reps, eng.threads());

    tensor a(CB_DTYPE_FLOAT32, {n}), b(CB_DTYPE_FLOAT32, {n}), c(CB_DTYPE_FLOAT32, {n});
    if (random_uniform(a.view(), 1, 0, error, eng) != CB_OK || random_uniform(b.view(), 2, 0, error, eng) != CB_OK)
        return 1;
    const std::size_t bytes = a.bytes();

    // The bound: memcpy, single-threaded and split across the engine's threads; the faster wins.
    double t_memcpy1 = best_seconds(reps, [&] { std::memcpy(c.data(), a.data(), bytes); });
    double t_memcpyN = best_seconds(reps, [&] {
        eng.parallel_for(static_cast<std::int64_t>(bytes), 1 << 20, [&](std::int64_t lo, std::int64_t hi) {
            std::memcpy(static_cast<char*>(c.data()) + lo, static_cast<const char*>(a.data()) + lo,
                        static_cast<std::size_t>(hi - lo));
        });
    });
    double t_memcpy = std::min(t_memcpy1, t_memcpyN);
    double memcpy_gbs = 2.0 * double(bytes) / t_memcpy / 1e9;  // read + write bytes per second
    std::printf("memcpy %.1f MiB: 1 thread %.3f ms, %u threads %.3f ms -> bound %.2f GB/s (read+write)\n", mib,
                t_memcpy1 * 1e3, eng.threads(), t_memcpyN * 1e3, memcpy_gbs);

    // add touches 3 arrays (2 read, 1 written); the memcpy bound moves the same bytes.
    double t_add = best_seconds(reps, [&] { (void)binary(binary_op::add, a.view(), b.view(), c.view(), error, eng); });
    double bound_add = 3.0 * double(bytes) / (memcpy_gbs * 1e9);
    if (c.as<float>()[n / 2] != a.as<float>()[n / 2] + b.as<float>()[n / 2]) {
        std::puts("add: wrong result");
        return 1;
    }
    std::printf("add:    %.3f ms, %.2f GB/s; memcpy bound %.3f ms -> ratio %.2f (goal >= 0.8)\n", t_add * 1e3,
                3.0 * double(bytes) / t_add / 1e9, bound_add * 1e3, bound_add / t_add);

    tensor s(CB_DTYPE_FLOAT32, {});
    double t_sum =
        best_seconds(reps, [&] { (void)reduce(reduce_op::sum, a.view(), k_all_axes, s.view(), error, eng); });
    double bound_sum = double(bytes) / (memcpy_gbs * 1e9);
    if (!(std::fabs(s.as<float>()[0] - 0.5 * double(n)) < 0.01 * double(n) + 10)) {
        std::puts("sum: wrong result");
        return 1;
    }
    std::printf("sum:    %.3f ms, %.2f GB/s; memcpy-read bound %.3f ms -> ratio %.2f (goal >= 0.8)\n", t_sum * 1e3,
                double(bytes) / t_sum / 1e9, bound_sum * 1e3, bound_sum / t_sum);

    double t_max =
        best_seconds(reps, [&] { (void)reduce(reduce_op::max, a.view(), k_all_axes, s.view(), error, eng); });
    if (!(s.as<float>()[0] < 1.0f && s.as<float>()[0] > 0.5f)) {
        std::puts("max: wrong result");
        return 1;
    }
    std::printf("max:    %.3f ms, %.2f GB/s; memcpy-read bound %.3f ms -> ratio %.2f (goal >= 0.8)\n", t_max * 1e3,
                double(bytes) / t_max / 1e9, bound_sum * 1e3, bound_sum / t_max);

    tensor x(CB_DTYPE_FLOAT32, {mm, mm}), y(CB_DTYPE_FLOAT32, {mm, mm}), z(CB_DTYPE_FLOAT32, {mm, mm}),
        zd(CB_DTYPE_FLOAT32, {mm, mm});
    (void)random_uniform(x.view(), 3, 0, error, eng);
    (void)random_uniform(y.view(), 4, 0, error, eng);
    auto direct = [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mm, mm, mm, 1.0f, x.as<float>(), mm, y.as<float>(), mm,
                    0.0f, zd.as<float>(), mm);
    };
    direct();  // warm OpenBLAS's threads
    double t_direct = best_seconds(reps, direct);
    double t_lib = best_seconds(reps, [&] { (void)matmul(x.view(), y.view(), z.view(), error, eng); });
    if (std::memcmp(z.data(), zd.data(), z.bytes()) != 0) {
        std::puts("matmul: differs from cblas_sgemm");
        return 1;
    }
    double flops = 2.0 * mm * mm * mm;
    std::printf(
        "matmul %dx%d float32: library %.3f ms (%.1f GFLOP/s), cblas_sgemm direct %.3f ms (%.1f GFLOP/s) "
        "-> ratio %.2f (goal >= 0.8)\n",
        mm, mm, t_lib * 1e3, flops / t_lib / 1e9, t_direct * 1e3, flops / t_direct / 1e9, t_direct / t_lib);
    return 0;
}

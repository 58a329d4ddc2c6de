// The PTX corpus on the simulated eGPU: each kernel in kernels/ (CUDA source beside the PTX
// nvcc 13 emitted for it) is loaded as PTX text, launched as a CUDA program would launch it, and
// its results are checked against a reference the test computes on the host with plain loops.
// Each test states the kernel's launch (grid, block, dynamic shared bytes) itself.
#include "corpus_fixture.hpp"

#include <cudabridge/texture_descriptor.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <numeric>

namespace cudabridge::test {
namespace {

// ---- elementwise -------------------------------------------------------------------------------

TEST_F(ptx_corpus, SaxpyOnOddSizesMatchesTheHostLoop) {
    // saxpy(int n, float a, const float* x, float* y): grid ceil(n/256), block 256, no shared.
    const size_t n = 1000003, guard = 61;
    const float a = 2.5f;
    std::vector<float> x(n), y(n + guard);
    for (size_t i = 0; i < n; ++i) x[i] = spread(i, -8.0f, 8.0f);
    for (size_t i = 0; i < n + guard; ++i) y[i] = spread(i + n, -8.0f, 8.0f);
    cbModule_t m = load("saxpy.ptx");
    ASSERT_NE(m, nullptr);
    void* dx = upload(x);
    void* dy = upload(y);
    ASSERT_EQ(run(m, "saxpy", {blocks_for(n, 256), 1, 1}, {256, 1, 1},
                  {cbArgInt(static_cast<int64_t>(n)), cbArgDouble(a), cbArgPointer(dx), cbArgPointer(dy)}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<float>(dy, n + guard);
    // nvcc contracts a * x + y to one fma.rn.f32: the host's std::fma gives the same bits.
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], std::fma(a, x[i], y[i])) << i;
    for (size_t i = n; i < n + guard; ++i) ASSERT_EQ(out[i], y[i]) << "past n: " << i;
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, DoubleDampedAxpyMatchesTheHostLoop) {
    // damped_axpy(int n, double a, double b, const double* x, double* y): grid ceil(n/128), block 128.
    const size_t n = 100003;
    const double a = 0.75, b = 0.125;
    std::vector<double> x(n), y(n, -1.0);
    for (size_t i = 0; i < n; ++i) x[i] = (static_cast<double>(mix(i)) - 2147483648.0) / 1048576.0;
    cbModule_t m = load("double_ops.ptx");
    ASSERT_NE(m, nullptr);
    void* dx = upload(x);
    void* dy = upload(y);
    ASSERT_EQ(
        run(m, "damped_axpy", {blocks_for(n, 128), 1, 1}, {128, 1, 1},
            {cbArgInt(static_cast<int64_t>(n)), cbArgDouble(a), cbArgDouble(b), cbArgPointer(dx), cbArgPointer(dy)}),
        cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<double>(dy, n);
    // Both terms share x's sign (no cancellation): within 4 ulps of the plain expression.
    for (size_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(out[i], a * x[i] + x[i] / (1.0 + b * std::fabs(x[i]))) << i;
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, IntegerBitOpsMatchTheHostExactly) {
    // int_bits(const int* a, const int* b, int* mixed, unsigned* bits, int n) with C++ linkage:
    // grid ceil(n/256), block 256.
    const std::string ptx = ptx_text("int_bits.ptx");
    const std::string name = entry_named(ptx, "int_bits");
    EXPECT_EQ(name.rfind("_Z", 0), 0u) << name << " should be mangled";
    const size_t n = 100003;
    std::vector<int> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
        a[i] = static_cast<int>(mix(i) % 200000001u) - 100000000;
        b[i] = static_cast<int>(mix(i + 7 * n) % 200000001u) - 100000000;
    }
    a[0] = 0, b[0] = 0, a[1] = -1, b[1] = 1, a[2] = -100000000, b[2] = 100000000;
    cbModule_t m = load("int_bits.ptx");
    ASSERT_NE(m, nullptr);
    void* da = upload(a);
    void* db = upload(b);
    void* dmixed = device_alloc(n * 4);
    void* dbits = device_alloc(n * 4);
    ASSERT_EQ(run(m, name, {blocks_for(n, 256), 1, 1}, {256, 1, 1},
                  {cbArgPointer(da), cbArgPointer(db), cbArgPointer(dmixed), cbArgPointer(dbits),
                   cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto mixed = download<int>(dmixed, n);
    const auto bits = download<uint32_t>(dbits, n);
    for (size_t i = 0; i < n; ++i) {
        const int x = a[i], y = b[i];
        const unsigned s = static_cast<unsigned>(i) & 31u;
        const int want_mixed = std::max(x, y) - std::min(x, y) + ((x ^ y) & 0xff) + (x >> 3) + x / 7 - y % 5;
        const uint32_t ux = static_cast<uint32_t>(x), uy = static_cast<uint32_t>(y);
        const uint32_t want_bits =
            (std::rotl(ux, static_cast<int>(s)) ^ (uy >> (s & 7u)) ^ (~ux & 0x0f0f0f0fu)) | (uy << 28);
        ASSERT_EQ(mixed[i], want_mixed) << i;
        ASSERT_EQ(bits[i], want_bits) << i;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, HalfAddMulAndRoundTripMatchTheHostRounding) {
    // half_ops(const __half* a, const __half* b, __half* sum, __half* product, __half* scaled,
    //          float scale, int n): grid ceil(n/256), block 256.
    const size_t n = 10007;
    const float scale = 0.0003f;  // small enough that some scaled results are subnormal halves
    std::vector<uint16_t> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
        a[i] = to_half(static_cast<float>(static_cast<int>(mix(i) % 2001u) - 1000) / 64.0f);
        b[i] = to_half(static_cast<float>(static_cast<int>(mix(i + n) % 2001u) - 1000) / 64.0f);
    }
    cbModule_t m = load("half_ops.ptx");
    ASSERT_NE(m, nullptr);
    void* da = upload(a);
    void* db = upload(b);
    void* dsum = device_alloc(n * 2);
    void* dproduct = device_alloc(n * 2);
    void* dscaled = device_alloc(n * 2);
    ASSERT_EQ(run(m, "half_ops", {blocks_for(n, 256), 1, 1}, {256, 1, 1},
                  {cbArgPointer(da), cbArgPointer(db), cbArgPointer(dsum), cbArgPointer(dproduct),
                   cbArgPointer(dscaled), cbArgDouble(scale), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto sum = download<uint16_t>(dsum, n);
    const auto product = download<uint16_t>(dproduct, n);
    const auto scaled = download<uint16_t>(dscaled, n);
    size_t subnormals = 0;
    for (size_t i = 0; i < n; ++i) {
        const float fa = from_half(a[i]), fb = from_half(b[i]);
        // Sums and products of these halves are exact in float: one rounding, to half.
        ASSERT_EQ(sum[i], to_half(fa + fb)) << i << ": " << fa << " + " << fb;
        ASSERT_EQ(product[i], to_half(fa * fb)) << i << ": " << fa << " * " << fb;
        ASSERT_EQ(scaled[i], to_half(fa * scale)) << i << ": " << fa;
        if ((scaled[i] & 0x7c00) == 0 && (scaled[i] & 0x3ff) != 0) ++subnormals;
    }
    EXPECT_GT(subnormals, 0u);
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

// ---- shared memory -----------------------------------------------------------------------------

TEST_F(ptx_corpus, TreeReductionGivesOnePartialPerBlock) {
    // reduce_sum(const float* in, float* partial, int n): grid ceil(n/256), block 256 (fixed),
    // 1 KiB of static shared memory.
    const size_t n = 1000003;
    const unsigned blocks = blocks_for(n, 256);
    std::vector<float> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = spread(i, -1.0f, 3.0f);
    cbModule_t m = load("reduce_sum.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dpartial = device_alloc(blocks * 4);
    ASSERT_EQ(run(m, "reduce_sum", {blocks, 1, 1}, {256, 1, 1},
                  {cbArgPointer(din), cbArgPointer(dpartial), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto partial = download<float>(dpartial, blocks);
    for (unsigned blk = 0; blk < blocks; ++blk) {
        // The same tree, in the same order, in float: the sums match bit for bit.
        float s[256];
        for (size_t t = 0; t < 256; ++t) s[t] = blk * 256 + t < n ? in[blk * 256 + t] : 0.0f;
        for (size_t stride = 128; stride > 0; stride >>= 1)
            for (size_t t = 0; t < stride; ++t) s[t] += s[t + stride];
        ASSERT_EQ(partial[blk], s[0]) << "block " << blk;
    }
    const double total = std::accumulate(partial.begin(), partial.end(), 0.0);
    const double exact = std::accumulate(in.begin(), in.end(), 0.0);
    EXPECT_NEAR(total, exact, 1e-5 * std::fabs(exact));
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, BlockScanIsAnInclusivePrefixSumPerBlock) {
    // inclusive_scan(const int* in, int* out, int* block_totals, int n): grid ceil(n/256),
    // block 256 (fixed), 2 KiB of static shared memory (two buffers).
    const size_t n = 100003;
    const unsigned blocks = blocks_for(n, 256);
    std::vector<int> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<int>(mix(i) % 101u) - 50;
    cbModule_t m = load("block_scan.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dout = device_alloc(n * 4);
    void* dtotals = device_alloc(blocks * 4);
    ASSERT_EQ(run(m, "inclusive_scan", {blocks, 1, 1}, {256, 1, 1},
                  {cbArgPointer(din), cbArgPointer(dout), cbArgPointer(dtotals), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<int>(dout, n);
    const auto totals = download<int>(dtotals, blocks);
    for (unsigned blk = 0; blk < blocks; ++blk) {
        int running = 0;
        for (size_t i = blk * 256ull; i < std::min<size_t>(n, (blk + 1) * 256ull); ++i) {
            running += in[i];
            ASSERT_EQ(out[i], running) << i;
        }
        ASSERT_EQ(totals[blk], running) << "block " << blk;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, BitonicSortSortsEachRunOf1024) {
    // bitonic_sort1024(int* data): one block of 1024 threads per run of 1024, 4 KiB of static
    // shared memory; grid 3 (three runs).
    const unsigned runs = 3;
    std::vector<int> data(runs * 1024);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int>(mix(i) % 601u) - 300;  // duplicates
    data[5] = std::numeric_limits<int>::min();
    data[1030] = std::numeric_limits<int>::max();
    cbModule_t m = load("bitonic_sort.ptx");
    ASSERT_NE(m, nullptr);
    void* d = upload(data);
    ASSERT_EQ(run(m, "bitonic_sort1024", {runs, 1, 1}, {1024, 1, 1}, {cbArgPointer(d)}), cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<int>(d, data.size());
    auto want = data;
    for (unsigned r = 0; r < runs; ++r) std::sort(want.begin() + r * 1024, want.begin() + (r + 1) * 1024);
    EXPECT_EQ(out, want);
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

// C = alpha * A * B + beta * C on the host, in double.
template <class T>
std::vector<double> gemm_reference(int M, int N, int K, double alpha, const std::vector<T>& A, const std::vector<T>& B,
                                   double beta, const std::vector<T>& C, std::vector<double>& magnitude) {
    std::vector<double> out(static_cast<size_t>(M) * N);
    magnitude.assign(out.size(), 0.0);
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            double acc = 0, mag = 0;
            for (int k = 0; k < K; ++k) {
                acc += static_cast<double>(A[r * K + k]) * B[k * N + c];
                mag += std::fabs(static_cast<double>(A[r * K + k]) * B[k * N + c]);
            }
            out[r * N + c] = alpha * acc + beta * C[r * N + c];
            magnitude[r * N + c] = std::fabs(alpha) * mag + std::fabs(beta * C[r * N + c]);
        }
    return out;
}

TEST_F(ptx_corpus, TiledSgemmHandlesEdgesThatAreNotMultiplesOf16) {
    // sgemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
    //             float* C): grid (ceil(N/16), ceil(M/16)), block (16, 16), 2 KiB static shared.
    cbModule_t m = load("sgemm_tiled.ptx");
    ASSERT_NE(m, nullptr);
    struct shape {
        int M, N, K;
    };
    for (const shape s : {shape{37, 53, 41}, shape{16, 16, 16}, shape{1, 70, 3}, shape{65, 1, 17}}) {
        SCOPED_TRACE(testing::Message() << s.M << "x" << s.N << "x" << s.K);
        const float alpha = 1.5f, beta = -0.5f;
        std::vector<float> A(static_cast<size_t>(s.M) * s.K), B(static_cast<size_t>(s.K) * s.N),
            C(static_cast<size_t>(s.M) * s.N);
        for (size_t i = 0; i < A.size(); ++i) A[i] = spread(i, -1.0f, 1.0f);
        for (size_t i = 0; i < B.size(); ++i) B[i] = spread(i + 5000, -1.0f, 1.0f);
        for (size_t i = 0; i < C.size(); ++i) C[i] = spread(i + 9000, -2.0f, 2.0f);
        void* dA = upload(A);
        void* dB = upload(B);
        void* dC = upload(C);
        ASSERT_EQ(run(m, "sgemm_tiled", {blocks_for(s.N, 16), blocks_for(s.M, 16), 1}, {16, 16, 1},
                      {cbArgInt(s.M), cbArgInt(s.N), cbArgInt(s.K), cbArgDouble(alpha), cbArgPointer(dA),
                       cbArgPointer(dB), cbArgDouble(beta), cbArgPointer(dC)}),
                  cbSuccess)
            << cbGetLastErrorMessage();
        const auto out = download<float>(dC, C.size());
        std::vector<double> magnitude;
        const auto want = gemm_reference(s.M, s.N, s.K, alpha, A, B, beta, C, magnitude);
        for (size_t i = 0; i < out.size(); ++i)
            ASSERT_NEAR(out[i], want[i], 1e-6 * (s.K + 2) * magnitude[i] + 1e-7) << i;
        EXPECT_EQ(rt->free(dA), cbSuccess);
        EXPECT_EQ(rt->free(dB), cbSuccess);
        EXPECT_EQ(rt->free(dC), cbSuccess);
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, TiledDgemmHandlesEdgesThatAreNotMultiplesOf16) {
    // dgemm_tiled(int M, int N, int K, double alpha, const double* A, const double* B, double beta,
    //             double* C): grid (ceil(N/16), ceil(M/16)), block (16, 16), 4 KiB static shared.
    cbModule_t m = load("dgemm_tiled.ptx");
    ASSERT_NE(m, nullptr);
    struct shape {
        int M, N, K;
    };
    for (const shape s : {shape{45, 29, 67}, shape{32, 48, 16}, shape{3, 1, 100}}) {
        SCOPED_TRACE(testing::Message() << s.M << "x" << s.N << "x" << s.K);
        const double alpha = -0.75, beta = 2.0;
        std::vector<double> A(static_cast<size_t>(s.M) * s.K), B(static_cast<size_t>(s.K) * s.N),
            C(static_cast<size_t>(s.M) * s.N);
        for (size_t i = 0; i < A.size(); ++i) A[i] = (static_cast<double>(mix(i)) - 2147483648.0) / 2147483648.0;
        for (size_t i = 0; i < B.size(); ++i) B[i] = (static_cast<double>(mix(i + 7777)) - 2147483648.0) / 2147483648.0;
        for (size_t i = 0; i < C.size(); ++i) C[i] = static_cast<double>(i % 17) - 8.0;
        void* dA = upload(A);
        void* dB = upload(B);
        void* dC = upload(C);
        ASSERT_EQ(run(m, "dgemm_tiled", {blocks_for(s.N, 16), blocks_for(s.M, 16), 1}, {16, 16, 1},
                      {cbArgInt(s.M), cbArgInt(s.N), cbArgInt(s.K), cbArgDouble(alpha), cbArgPointer(dA),
                       cbArgPointer(dB), cbArgDouble(beta), cbArgPointer(dC)}),
                  cbSuccess)
            << cbGetLastErrorMessage();
        const auto out = download<double>(dC, C.size());
        std::vector<double> magnitude;
        const auto want = gemm_reference(s.M, s.N, s.K, alpha, A, B, beta, C, magnitude);
        for (size_t i = 0; i < out.size(); ++i)
            ASSERT_NEAR(out[i], want[i], 1e-15 * (s.K + 2) * magnitude[i] + 1e-300) << i;
        EXPECT_EQ(rt->free(dA), cbSuccess);
        EXPECT_EQ(rt->free(dB), cbSuccess);
        EXPECT_EQ(rt->free(dC), cbSuccess);
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, SharedMemoryHistogramCountsEveryByte) {
    // histogram256(const unsigned char* data, int n, unsigned* bins): grid 48, block 256 (a
    // grid-stride loop), 1 KiB of static shared memory; bins start at zero.
    const size_t n = 1000003;
    std::vector<uint8_t> data(n);
    for (size_t i = 0; i < n; ++i) data[i] = (i % 5 == 0) ? 7 : static_cast<uint8_t>(mix(i) & 0xff);  // one hot bin
    cbModule_t m = load("histogram.ptx");
    ASSERT_NE(m, nullptr);
    void* ddata = upload(data);
    void* dbins = device_alloc(256 * 4);
    ASSERT_EQ(rt->memset(dbins, 0, 256 * 4, nullptr, false), cbSuccess);
    ASSERT_EQ(run(m, "histogram256", {48, 1, 1}, {256, 1, 1},
                  {cbArgPointer(ddata), cbArgInt(static_cast<int64_t>(n)), cbArgPointer(dbins)}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto bins = download<uint32_t>(dbins, 256);
    std::vector<uint32_t> want(256, 0);
    for (uint8_t v : data) ++want[v];
    EXPECT_EQ(bins, want);
    EXPECT_EQ(std::accumulate(bins.begin(), bins.end(), uint64_t{0}), n);
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

// ---- warps -------------------------------------------------------------------------------------

TEST_F(ptx_corpus, WarpShuffleDownSumsEachWarp) {
    // warp_sum(const int* in, int* warp_totals, int n): grid ceil(n/128), block 128.
    const size_t n = 10007, warps = (n + 31) / 32;
    std::vector<int> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<int>(mix(i) % 20001u) - 10000;
    cbModule_t m = load("warp_shuffle.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dout = upload(std::vector<int>(warps, 0x5a5a5a5a));
    ASSERT_EQ(run(m, "warp_sum", {blocks_for(n, 128), 1, 1}, {128, 1, 1},
                  {cbArgPointer(din), cbArgPointer(dout), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<int>(dout, warps);
    for (size_t w = 0; w < warps; ++w) {
        int want = 0;
        for (size_t i = w * 32; i < std::min(n, w * 32 + 32); ++i) want += in[i];
        ASSERT_EQ(out[w], want) << "warp " << w;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, WarpXorButterflyLeavesTheWarpMaximumInEveryLane) {
    // warp_max(const float* in, float* out, int n): grid ceil(n/96), block 96 (three warps).
    const size_t n = 10007;
    std::vector<float> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = spread(i, -100.0f, 100.0f);
    cbModule_t m = load("warp_shuffle.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dout = device_alloc(n * 4);
    ASSERT_EQ(run(m, "warp_max", {blocks_for(n, 96), 1, 1}, {96, 1, 1},
                  {cbArgPointer(din), cbArgPointer(dout), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<float>(dout, n);
    for (size_t i = 0; i < n; ++i) {
        const size_t first = i / 32 * 32;
        const float want = *std::max_element(in.begin() + first, in.begin() + std::min(n, first + 32));
        ASSERT_EQ(out[i], want) << i;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, WarpVotesBallotPopcAnyAndAll) {
    // warp_vote(const int* in, int n, unsigned* ballots, int* counts, int* any, int* all):
    // grid ceil(n/64), block 64; n is not a multiple of 32, so the last warp is partly past n.
    const size_t n = 1000, warps = (n + 31) / 32;
    std::vector<int> in(n);
    for (size_t i = 0; i < n; ++i) {
        const size_t w = i / 32;
        if (w % 4 == 0)
            in[i] = 1 + static_cast<int>(i % 3);  // all positive
        else if (w % 4 == 1)
            in[i] = -static_cast<int>(i % 3);  // none positive
        else
            in[i] = (mix(i) % 3 == 0) ? 5 : -5;  // mixed
    }
    cbModule_t m = load("warp_vote.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dballots = device_alloc(warps * 4);
    void* dcounts = device_alloc(warps * 4);
    void* dany = device_alloc(warps * 4);
    void* dall = device_alloc(warps * 4);
    ASSERT_EQ(run(m, "warp_vote", {blocks_for(n, 64), 1, 1}, {64, 1, 1},
                  {cbArgPointer(din), cbArgInt(static_cast<int64_t>(n)), cbArgPointer(dballots), cbArgPointer(dcounts),
                   cbArgPointer(dany), cbArgPointer(dall)}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto ballots = download<uint32_t>(dballots, warps);
    const auto counts = download<int>(dcounts, warps);
    const auto any = download<int>(dany, warps);
    const auto all = download<int>(dall, warps);
    for (size_t w = 0; w < warps; ++w) {
        uint32_t want = 0;
        for (size_t lane = 0; lane < 32; ++lane) {
            const size_t i = w * 32 + lane;
            if (i < n && in[i] > 0) want |= 1u << lane;
        }
        ASSERT_EQ(ballots[w], want) << "warp " << w;
        ASSERT_EQ(counts[w], std::popcount(want)) << "warp " << w;
        ASSERT_EQ(any[w], want != 0 ? 1 : 0) << "warp " << w;
        ASSERT_EQ(all[w], want == 0xffffffffu ? 1 : 0) << "warp " << w;
    }
    EXPECT_EQ(all[0], 1);
    EXPECT_EQ(any[1], 0);
    EXPECT_EQ(all[warps - 1], 0) << "lanes past n vote false";
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

// ---- 2D grids ----------------------------------------------------------------------------------

TEST_F(ptx_corpus, FivePointStencilOnA2DGrid) {
    // stencil5(const float* in, float* out, int width, int height, float center, float side):
    // grid (ceil(width/16), ceil(height/16)), block (16, 16).
    const int width = 123, height = 77;
    const float center = 0.5f, side = 0.125f;
    std::vector<float> in(static_cast<size_t>(width) * height);
    for (size_t i = 0; i < in.size(); ++i) in[i] = spread(i, 0.0f, 10.0f);
    cbModule_t m = load("stencil2d.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dout = upload(std::vector<float>(in.size(), -1.0f));
    ASSERT_EQ(run(m, "stencil5", {blocks_for(width, 16), blocks_for(height, 16), 1}, {16, 16, 1},
                  {cbArgPointer(din), cbArgPointer(dout), cbArgInt(width), cbArgInt(height), cbArgDouble(center),
                   cbArgDouble(side)}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<float>(dout, in.size());
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const int i = y * width + x;
            float want = in[i];
            if (x > 0 && y > 0 && x < width - 1 && y < height - 1)
                want = center * in[i] + side * (in[i - 1] + in[i + 1] + in[i - width] + in[i + width]);
            ASSERT_FLOAT_EQ(out[i], want) << "(" << x << ", " << y << ")";
        }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, TransposeThroughAPaddedSharedTile) {
    // transpose_tiled(float* out, const float* in, int rows, int cols) with C++ linkage:
    // grid (ceil(cols/32), ceil(rows/32)), block (32, 8), 4224 bytes of static shared memory.
    const std::string name = entry_named(ptx_text("transpose.ptx"), "transpose_tiled");
    EXPECT_EQ(name.rfind("_Z", 0), 0u) << name << " should be mangled";
    cbModule_t m = load("transpose.ptx");
    ASSERT_NE(m, nullptr);
    for (const auto& [rows, cols] : {std::pair{37, 53}, std::pair{70, 33}, std::pair{1, 1}}) {
        SCOPED_TRACE(testing::Message() << rows << "x" << cols);
        std::vector<float> in(static_cast<size_t>(rows) * cols);
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) + 0.5f;
        void* din = upload(in);
        void* dout = device_alloc(in.size() * 4);
        ASSERT_EQ(run(m, name, {blocks_for(cols, 32), blocks_for(rows, 32), 1}, {32, 8, 1},
                      {cbArgPointer(dout), cbArgPointer(din), cbArgInt(rows), cbArgInt(cols)}),
                  cbSuccess)
            << cbGetLastErrorMessage();
        const auto out = download<float>(dout, in.size());
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) ASSERT_EQ(out[c * rows + r], in[r * cols + c]) << r << ", " << c;
        EXPECT_EQ(rt->free(din), cbSuccess);
        EXPECT_EQ(rt->free(dout), cbSuccess);
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

// ---- calls, local memory, atomics --------------------------------------------------------------

TEST_F(ptx_corpus, NoinlineDeviceFunctionReadsTheCallersLocalArray) {
    // window_sums(const float* in, float* out, int n): grid ceil(n/128), block 128; each thread
    // fills a local float[8] and calls weighted_sum (a .func) with a pointer to it.
    const size_t n = 10007;
    std::vector<float> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = spread(i, 0.0f, 4.0f);
    cbModule_t m = load("device_call.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dout = device_alloc(n * 4);
    ASSERT_EQ(run(m, "window_sums", {blocks_for(n, 128), 1, 1}, {128, 1, 1},
                  {cbArgPointer(din), cbArgPointer(dout), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<float>(dout, n);
    for (size_t i = 0; i < n; ++i) {
        float want = 0.0f;
        for (size_t k = 0; k < 8 && i + k < n; ++k) want += in[i + k] * static_cast<float>(k + 1);
        ASSERT_FLOAT_EQ(out[i], want) << i;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, SixtyFourBitAtomicsAddMaxAndCasLoop) {
    // atomics64(const long long* values, int n, unsigned long long* sum, long long* maximum,
    //           double* half_low_sum): grid ceil(n/256), block 256; every thread hits the same
    // three words.
    const size_t n = 100003;
    std::vector<int64_t> values(n);
    for (size_t i = 0; i < n; ++i)
        values[i] = static_cast<int64_t>((static_cast<uint64_t>(mix(i)) << 32) | mix(i + n)) >> 12;  // +-2^51
    values[n / 2] = (int64_t{1} << 62) + 12345;  // the maximum, in the middle
    cbModule_t m = load("atomics64.ptx");
    ASSERT_NE(m, nullptr);
    void* dvalues = upload(values);
    void* dsum = upload(std::vector<uint64_t>{0});
    void* dmax = upload(std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
    void* dhalf = upload(std::vector<double>{0.0});
    ASSERT_EQ(run(m, "atomics64", {blocks_for(n, 256), 1, 1}, {256, 1, 1},
                  {cbArgPointer(dvalues), cbArgInt(static_cast<int64_t>(n)), cbArgPointer(dsum), cbArgPointer(dmax),
                   cbArgPointer(dhalf)}),
              cbSuccess)
        << cbGetLastErrorMessage();
    uint64_t want_sum = 0;
    int64_t want_max = std::numeric_limits<int64_t>::min();
    double want_half = 0.0;  // multiples of 0.5 below 2^52: exact in any order
    for (int64_t v : values) {
        want_sum += static_cast<uint64_t>(v);
        want_max = std::max(want_max, v);
        want_half += static_cast<double>(v & 0xffff) * 0.5;
    }
    EXPECT_EQ(download<uint64_t>(dsum, 1)[0], want_sum);
    EXPECT_EQ(download<int64_t>(dmax, 1)[0], want_max);
    EXPECT_EQ(download<double>(dhalf, 1)[0], want_half);
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, ModuleGlobalsKeepTheirValuesAcrossLaunches) {
    // take_tickets(unsigned* tickets, int* biased, int n): grid ceil(n/256), block 256, twice; the
    // module's __device__ counter starts at zero and carries over, its table is initialised.
    const size_t n = 5003;
    cbModule_t m = load("device_globals.ptx");
    ASSERT_NE(m, nullptr);
    void* dtickets = device_alloc(n * 4);
    void* dbiased = device_alloc(n * 4);
    const int bias[4] = {10, -20, 30, -40};
    for (uint32_t round = 0; round < 2; ++round) {
        SCOPED_TRACE(testing::Message() << "launch " << round);
        ASSERT_EQ(run(m, "take_tickets", {blocks_for(n, 256), 1, 1}, {256, 1, 1},
                      {cbArgPointer(dtickets), cbArgPointer(dbiased), cbArgInt(static_cast<int64_t>(n))}),
                  cbSuccess)
            << cbGetLastErrorMessage();
        auto tickets = download<uint32_t>(dtickets, n);
        std::sort(tickets.begin(), tickets.end());
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(tickets[i], round * n + i) << "each ticket once";
        const auto biased = download<int>(dbiased, n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(biased[i], static_cast<int>(i) + bias[i & 3]) << i;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, AStructArgumentArrivesAsOneAlignedParam) {
    // apply_affine(affine_map map, const float* in, float* out): the struct by value (its bytes,
    // CB_ARG_BYTES) in a .param .align 8 .b8 [24]; grid ceil(count/256), block 256.
    struct affine_map {
        double offset;
        float scale;
        int stride;
        int count;
    };
    static_assert(sizeof(affine_map) == 24 && alignof(affine_map) == 8);
    const affine_map map{0.1, -1.75f, 3, 10007};
    std::vector<float> in(static_cast<size_t>(map.count) * map.stride);
    for (size_t i = 0; i < in.size(); ++i) in[i] = spread(i, -50.0f, 50.0f);
    cbModule_t m = load("struct_param.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dout = device_alloc(static_cast<size_t>(map.count) * 4);
    cbKernelArg by_value;
    by_value.type = CB_ARG_BYTES;
    by_value.size = sizeof map;
    by_value.value.bytes = &map;
    ASSERT_EQ(run(m, "apply_affine", {blocks_for(static_cast<size_t>(map.count), 256), 1, 1}, {256, 1, 1},
                  {by_value, cbArgPointer(din), cbArgPointer(dout)}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<float>(dout, static_cast<size_t>(map.count));
    for (int i = 0; i < map.count; ++i) {
        // A float product, a double sum, one rounding back to float.
        const float want = static_cast<float>(map.scale * in[static_cast<size_t>(i) * map.stride] + map.offset);
        ASSERT_EQ(out[i], want) << i;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

// ---- special memory ----------------------------------------------------------------------------

TEST_F(ptx_corpus, DynamicSharedMemoryIsSizedByTheLaunch) {
    // reverse_segments(const float* in, float* out, int n): extern __shared__ float[blockDim.x];
    // grid ceil(n/block), block 192 with 768 dynamic shared bytes, then block 320 with 1280.
    const size_t n = 100003;
    std::vector<float> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i);
    cbModule_t m = load("dynamic_shared.ptx");
    ASSERT_NE(m, nullptr);
    void* din = upload(in);
    void* dout = device_alloc(n * 4);
    for (const unsigned block : {192u, 320u}) {
        SCOPED_TRACE(testing::Message() << "block " << block);
        ASSERT_EQ(
            run(m, "reverse_segments", {blocks_for(n, block), 1, 1}, {block, 1, 1},
                {cbArgPointer(din), cbArgPointer(dout), cbArgInt(static_cast<int64_t>(n))}, block * sizeof(float)),
            cbSuccess)
            << cbGetLastErrorMessage();
        const auto out = download<float>(dout, n);
        for (size_t base = 0; base < n; base += block) {
            const size_t length = std::min<size_t>(block, n - base);
            for (size_t t = 0; t < length; ++t) ASSERT_EQ(out[base + t], in[base + length - 1 - t]) << base + t;
        }
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, ConstantTableInitialisersAreLoadedWithTheModule) {
    // poly_eval(const float* x, float* y, int n) reading __constant__ float coeffs[4]:
    // grid ceil(n/256), block 256.
    const size_t n = 100003;
    const float c[4] = {0.5f, -1.25f, 2.0f, 0.125f};  // as initialised in constant_table.cu
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = spread(i, -4.0f, 4.0f);
    cbModule_t m = load("constant_table.ptx");
    ASSERT_NE(m, nullptr);
    void* dx = upload(x);
    void* dy = device_alloc(n * 4);
    ASSERT_EQ(run(m, "poly_eval", {blocks_for(n, 256), 1, 1}, {256, 1, 1},
                  {cbArgPointer(dx), cbArgPointer(dy), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto y = download<float>(dy, n);
    for (size_t i = 0; i < n; ++i) {
        // Horner's rule with each step fused, as nvcc contracts it.
        const float v = x[i];
        const float want = std::fma(v, std::fma(v, std::fma(v, c[3], c[2]), c[1]), c[0]);
        ASSERT_FLOAT_EQ(y[i], want) << i << ": x = " << v;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

// ---- math --------------------------------------------------------------------------------------

// |got - want| within `rel` of |want| plus `abs`; equal infinities and zeros pass.
::testing::AssertionResult within(float got, double want, double rel, double abs = 0.0) {
    if (static_cast<double>(got) == want) return ::testing::AssertionSuccess();
    const double err = std::fabs(static_cast<double>(got) - want);
    if (std::isfinite(want) && err <= rel * std::fabs(want) + abs) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (error " << err << ")";
}

TEST_F(ptx_corpus, MathFunctionsStayWithinTheirDocumentedErrors) {
    // math_funcs(const float* x, float* f, int* iv, double* d, int n): grid ceil(n/128), block 128;
    // f holds 10 results per element, iv 3 (each a row of n).
    const size_t n = 10007;
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = spread(i, -3.0f, 3.0f);
    for (size_t i = 0; i < n; i += 101) x[i] = (i % 2 ? -1.0f : 1.0f) * (1.0e5f + 37.25f * static_cast<float>(i));
    x[1] = 0.0f, x[2] = -0.0f, x[3] = 1.0f, x[4] = -2.5f, x[5] = 0.005f, x[6] = -0.005f;
    cbModule_t m = load("math_funcs.ptx");
    ASSERT_NE(m, nullptr);
    void* dx = upload(x);
    void* df = device_alloc(10 * n * 4);
    void* di = device_alloc(3 * n * 4);
    void* dd = device_alloc(n * 8);
    ASSERT_EQ(run(m, "math_funcs", {blocks_for(n, 128), 1, 1}, {128, 1, 1},
                  {cbArgPointer(dx), cbArgPointer(df), cbArgPointer(di), cbArgPointer(dd),
                   cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto f = download<float>(df, 10 * n);
    const auto iv = download<int>(di, 3 * n);
    const auto d = download<double>(dd, n);
    for (size_t i = 0; i < n; ++i) {
        SCOPED_TRACE(testing::Message() << "i = " << i << ", x = " << x[i]);
        const float v = x[i];
        const float a = std::fabs(v) + 0.5f;
        const double dv = v, da = a;
        const bool small = std::fabs(v) <= 3.0f;                       // the fast intrinsics' documented range
        ASSERT_EQ(f[0 * n + i], std::sqrt(a));                         // sqrtf: correctly rounded
        ASSERT_TRUE(within(f[1 * n + i], std::exp(dv), 3e-7, 1e-38));  // expf: 2 ulp
        ASSERT_TRUE(within(f[3 * n + i], std::sin(dv), 3e-7, 1e-38));  // sinf: 2 ulp, any argument
        if (small) {
            ASSERT_TRUE(within(f[2 * n + i], std::exp(dv), 2e-6));       // __expf: 2 + 1.2|x| ulp
            ASSERT_TRUE(within(f[4 * n + i], std::sin(dv), 0.0, 2e-6));  // __sinf: absolute error
        }
        ASSERT_TRUE(within(f[5 * n + i], 1.0 / std::sqrt(da), 3e-7));  // rsqrtf: 2 ulp
        ASSERT_TRUE(within(f[6 * n + i], dv / da, 3e-7));              // fdividef
        ASSERT_EQ(f[7 * n + i], std::fma(v, a, 1.0f));                 // fmaf: one rounding
        ASSERT_TRUE(within(f[8 * n + i], dv / da, 3e-7));              // __fdividef: 2 ulp here
        ASSERT_EQ(f[9 * n + i], static_cast<float>(static_cast<int>(i % 1000) - 500) * 0.25f);
        ASSERT_EQ(iv[0 * n + i], static_cast<int>(std::nearbyint(v * 100.0f)));  // round half to even
        ASSERT_EQ(iv[1 * n + i], static_cast<int>(v * 100.0f));                  // truncation
        ASSERT_EQ(iv[2 * n + i], static_cast<int>(static_cast<unsigned>(a * 1000.0f)));
        ASSERT_EQ(d[i], dv * da);  // exact in double
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

// ---- output and failures -----------------------------------------------------------------------

TEST_F(ptx_corpus, PrintfLinesReachStdout) {
    // print_values(const float* values): grid 2, block 64; threads 0, 16, 32, 48 of each block
    // print "block %d thread %d value %f".
    std::vector<float> values(128);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f - 3.0f;
    cbModule_t m = load("printf.ptx");
    ASSERT_NE(m, nullptr);
    void* d = upload(values);
    testing::internal::CaptureStdout();
    const cbError_t e = run(m, "print_values", {2, 1, 1}, {64, 1, 1}, {cbArgPointer(d)});
    std::fflush(stdout);
    const std::string out = testing::internal::GetCapturedStdout();
    ASSERT_EQ(e, cbSuccess) << cbGetLastErrorMessage();
    size_t lines = 0;
    for (char ch : out) lines += ch == '\n';
    EXPECT_EQ(lines, 8u) << out;
    for (int block = 0; block < 2; ++block)
        for (int thread = 0; thread < 64; thread += 16) {
            char want[96];
            std::snprintf(want, sizeof want, "block %d thread %d value %f\n", block, thread,
                          static_cast<double>(values[block * 64 + thread]));
            EXPECT_NE(out.find(want), std::string::npos) << "missing: " << want << "in:\n" << out;
        }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(ptx_corpus, AnOutOfBoundsStoreIsAStickyIllegalAddress) {
    // store_far_out_of_bounds(float* p, int n): grid 1, block 32; every thread stores 1 TiB past p.
    const size_t n = 32;
    cbModule_t m = load("oob_store.ptx");
    ASSERT_NE(m, nullptr);
    void* d = device_alloc(n * 4);
    const std::vector<cbKernelArg> args = {cbArgPointer(d), cbArgInt(static_cast<int64_t>(n))};
    const cbError_t launched =
        rt->launch_kernel(m, "store_far_out_of_bounds", {1, 1, 1}, {32, 1, 1}, args.data(), args.size(), 0, nullptr);
    EXPECT_TRUE(launched == cbSuccess || launched == cbErrorIllegalAddress) << launched;
    EXPECT_EQ(rt->synchronize(), cbErrorIllegalAddress) << cbGetLastErrorMessage();
    EXPECT_FALSE(std::string(cbGetLastErrorMessage()).empty());
    // Sticky: the context stays failed for every later call.
    EXPECT_EQ(rt->synchronize(), cbErrorIllegalAddress);
    EXPECT_EQ(rt->memset(d, 0, n * 4, nullptr, false), cbErrorIllegalAddress);
    std::vector<float> back(n);
    EXPECT_EQ(rt->memcpy(back.data(), d, n * 4, cbMemcpyDeviceToHost, nullptr, false), cbErrorIllegalAddress);
    EXPECT_EQ(
        rt->launch_kernel(m, "store_far_out_of_bounds", {1, 1, 1}, {32, 1, 1}, args.data(), args.size(), 0, nullptr),
        cbErrorIllegalAddress);
    // cbDeviceReset clears it; the device works again.
    ASSERT_EQ(rt->reset_device(), cbSuccess) << cbGetLastErrorMessage();
    void* again = device_alloc(4096);
    EXPECT_EQ(rt->memset(again, 1, 4096, nullptr, false), cbSuccess);
}

// `word` occurs in `text` with no letter or digit right before or after it.
bool has_word(const std::string& text, const std::string& word) {
    const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const bool starts = at == 0 || !alnum(text[at - 1]);
        const bool ends = at + word.size() == text.size() || !alnum(text[at + word.size()]);
        if (starts && ends) return true;
    }
    return false;
}

TEST_F(ptx_corpus, AnInstructionTheEngineDoesNotRunIsRejectedAtLoadNamingItAndItsLine) {
    // scalar_video(const unsigned* a, const unsigned* b, unsigned* out, int n) uses the scalar
    // video instruction vadd (inline assembly): never launched.
    const std::string text = ptx_text("scalar_video.ptx");
    size_t line_of_simd = 0, line = 0;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) {
        ++line;
        if (l.find("vadd.u32") != std::string::npos) line_of_simd = line;
    }
    ASSERT_NE(line_of_simd, 0u);
    cbModule_t m = nullptr;
    EXPECT_NE(rt->module_load(&m, text.data(), text.size() + 1, CB_MODULE_PTX), cbSuccess);
    const std::string message = cbGetLastErrorMessage();
    EXPECT_TRUE(has_word(message, "vadd")) << message;
    EXPECT_TRUE(has_word(message, "line")) << message;
    EXPECT_TRUE(has_word(message, std::to_string(line_of_simd)))
        << message << " (vadd is on line " << line_of_simd << ")";
    // The device is not poisoned by a module that did not load.
    void* d = device_alloc(4096);
    EXPECT_EQ(rt->memset(d, 0, 4096, nullptr, false), cbSuccess);
}

TEST_F(ptx_corpus, ATextureFetchReadsTheTexelsItsDescriptorNames) {
    // gather_texture(cudaTextureObject_t tex, float* out, int n): out[i] = 2 * tex1Dfetch(tex, i),
    // with the handle the device address of a cb_texture_descriptor of linear memory (the last
    // two threads fetch past its end: zeros).
    const int n = 200, texels = 198;
    std::vector<float> values(texels);
    for (int i = 0; i < texels; ++i) values[i] = spread(static_cast<size_t>(i), -3.0f, 3.0f);
    void* dv = upload(values);
    cb_texture_descriptor d{};
    d.struct_size = sizeof d;
    d.magic = CB_TEXTURE_DESCRIPTOR_MAGIC;
    d.address = reinterpret_cast<uintptr_t>(dv);
    d.pitch = d.slice_pitch = texels * sizeof(float);
    d.width = texels;
    d.height = d.depth = d.layers = 1;
    d.geometry = CB_TEXTURE_LINEAR;
    d.channel_bits[0] = 32;
    d.channel_kind = CB_CHANNEL_FLOAT;
    d.element_bytes = 4;
    std::vector<cb_texture_descriptor> one{d};
    void* handle = upload(one);
    void* out = upload(std::vector<float>(n, -1.0f));
    cbModule_t m = load("texture_fetch.ptx");
    ASSERT_NE(m, nullptr) << cbGetLastErrorMessage();
    ASSERT_EQ(run(m, "gather_texture", {2, 1, 1}, {128, 1, 1},
                  {cbArgPointer(handle), cbArgPointer(out), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto got = download<float>(out, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], i < texels ? 2.0f * values[i] : 0.0f) << i;
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

}  // namespace
}  // namespace cudabridge::test

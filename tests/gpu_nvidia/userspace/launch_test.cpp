// Built-in kernels through the ring: add, sum and matmul against host references, on the null
// stream and on a stream; a tensor outside every allocation is refused before anything is queued.
#include <cudabridge/cpp/builtin_args.hpp>
#include "sim_bench.hpp"

#include <cudabridge/builtin_kernels.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace cudabridge::test {
namespace {

cb_tensor_desc tensor(uint64_t ptr, cb_dtype dtype, const std::vector<int64_t>& shape) {
    return sdk::contiguous_tensor(ptr, dtype, shape);
}
cb_kernel_arg bytes_of(const cb_tensor_desc& t) { return sdk::tensor_arg(t); }
using sdk::int64_arg;
cb_kernel_launch launch_of(const char* name, cb_dtype dtype, const std::vector<cb_kernel_arg>& args) {
    return sdk::builtin_launch(name, dtype, args);
}

template <class T>
uint64_t upload(nv::userspace_device& gpu, const std::vector<T>& v) {
    std::string error;
    uint64_t p = 0;
    EXPECT_EQ(gpu.mem_alloc(v.size() * sizeof(T), p, error), CB_OK) << error;
    EXPECT_EQ(gpu.memcpy_h2d(p, v.data(), v.size() * sizeof(T), nullptr, error), CB_OK) << error;
    return p;
}

template <class T>
std::vector<T> download(nv::userspace_device& gpu, uint64_t p, size_t n) {
    std::string error;
    std::vector<T> v(n);
    EXPECT_EQ(gpu.memcpy_d2h(v.data(), p, n * sizeof(T), nullptr, error), CB_OK) << error;
    return v;
}

TEST(UserspaceLaunch, AddOnTheNullStream) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    const size_t n = 10007;
    std::vector<float> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i) * 0.5f;
        b[i] = 3.0f - static_cast<float>(i % 13);
    }
    const uint64_t da = upload(gpu, a), db = upload(gpu, b), dout = upload(gpu, std::vector<float>(n));
    const auto ta = tensor(da, CB_DTYPE_FLOAT32, {static_cast<int64_t>(n)});
    const auto tb = tensor(db, CB_DTYPE_FLOAT32, {static_cast<int64_t>(n)});
    const auto tout = tensor(dout, CB_DTYPE_FLOAT32, {static_cast<int64_t>(n)});
    const std::vector<cb_kernel_arg> args = {bytes_of(ta), bytes_of(tb), bytes_of(tout)};
    std::string error;
    ASSERT_EQ(gpu.launch_builtin(launch_of("add", CB_DTYPE_FLOAT32, args), nullptr, error), CB_OK) << error;
    const auto out = download<float>(gpu, dout, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << i;
}

// Launch blocks travel from the arena mapped at init: thousands of launches map nothing more,
// and every result is still right as the arena wraps (each launch reads its own arguments).
TEST(UserspaceLaunch, LaunchBlocksAreReusedAndResultsStayRight) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    const size_t n = 256;
    std::vector<float> a(n, 1.0f);
    const uint64_t da = upload(gpu, a), dout = upload(gpu, std::vector<float>(n));
    const auto ta = tensor(da, CB_DTYPE_FLOAT32, {static_cast<int64_t>(n)});
    const auto tout = tensor(dout, CB_DTYPE_FLOAT32, {static_cast<int64_t>(n)});
    std::string error;
    const uint64_t blocks_before = gpu.launch_blocks_mapped();
    for (int i = 0; i < 3000; ++i) {
        // fill(out, i) then out = out + a: the value depends on this launch's own block.
        const std::vector<cb_kernel_arg> fill = {bytes_of(tout), sdk::float64_arg(static_cast<double>(i))};
        ASSERT_EQ(gpu.launch_builtin(launch_of("fill", CB_DTYPE_FLOAT32, fill), nullptr, error), CB_OK) << error;
        const std::vector<cb_kernel_arg> add = {bytes_of(tout), bytes_of(ta), bytes_of(tout)};
        ASSERT_EQ(gpu.launch_builtin(launch_of("add", CB_DTYPE_FLOAT32, add), nullptr, error), CB_OK) << error;
        if (i % 500 == 499) {
            const auto out = download<float>(gpu, dout, n);
            ASSERT_EQ(out[0], static_cast<float>(i) + 1.0f) << i;
            ASSERT_EQ(out[n - 1], static_cast<float>(i) + 1.0f) << i;
        }
    }
    EXPECT_EQ(gpu.launch_blocks_mapped() - blocks_before, 0u);
}

// Queued on a stream, launches outrun the device until the arena is full; each then waits for
// the oldest to complete, and the arena's bytes are reused only once their launch has run.
TEST(UserspaceLaunch, AFullArenaWaitsAndKeepsEveryLaunchsArguments) {
    bench_options options;
    options.driver.launch_arena_bytes = 1;  // one page: a few launches fill it
    sim_bench bench(options);
    auto& gpu = bench.gpu();
    const size_t n = 64;
    const uint64_t dacc = upload(gpu, std::vector<int64_t>(n)), done = upload(gpu, std::vector<int64_t>(n, 1));
    const auto acc = tensor(dacc, CB_DTYPE_INT64, {static_cast<int64_t>(n)});
    const auto one = tensor(done, CB_DTYPE_INT64, {static_cast<int64_t>(n)});
    std::string error;
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK) << error;
    // 4000 adds of about 500 bytes each: hundreds of times the arena.
    const std::vector<cb_kernel_arg> add = {bytes_of(acc), bytes_of(one), bytes_of(acc)};
    const int launches = 4000;
    for (int i = 0; i < launches; ++i)
        ASSERT_EQ(gpu.launch_builtin(launch_of("add", CB_DTYPE_INT64, add), s, error), CB_OK) << error;
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    const auto out = download<int64_t>(gpu, dacc, n);
    EXPECT_EQ(out[0], launches);
    EXPECT_EQ(out[n - 1], launches);
    ASSERT_EQ(gpu.stream_destroy(s, error), CB_OK) << error;
}

TEST(UserspaceLaunch, SumAndMatmulOnAStream) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);

    // sum over all axes of a 3x5x7 float64 tensor
    std::vector<double> x(105);
    std::iota(x.begin(), x.end(), -20.0);
    const uint64_t dx = upload(gpu, x), dsum = upload(gpu, std::vector<double>(1));
    const auto tx = tensor(dx, CB_DTYPE_FLOAT64, {3, 5, 7});
    const auto tsum = tensor(dsum, CB_DTYPE_FLOAT64, {});
    const std::vector<cb_kernel_arg> sum_args = {bytes_of(tx), bytes_of(tsum), int64_arg(CB_REDUCE_ALL_AXES)};
    ASSERT_EQ(gpu.launch_builtin(launch_of("sum", CB_DTYPE_FLOAT64, sum_args), s, error), CB_OK) << error;

    // (M x K) @ (K x N) in float32
    const int64_t M = 33, K = 17, N = 29;
    std::vector<float> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2) * 0.25f;
    const uint64_t da = upload(gpu, a), db = upload(gpu, b);
    const uint64_t dc = upload(gpu, std::vector<float>(static_cast<size_t>(M * N)));
    const auto ta = tensor(da, CB_DTYPE_FLOAT32, {M, K});
    const auto tb = tensor(db, CB_DTYPE_FLOAT32, {K, N});
    const auto tc = tensor(dc, CB_DTYPE_FLOAT32, {M, N});
    const std::vector<cb_kernel_arg> mm_args = {bytes_of(ta), bytes_of(tb), bytes_of(tc)};
    ASSERT_EQ(gpu.launch_builtin(launch_of("matmul", CB_DTYPE_FLOAT32, mm_args), s, error), CB_OK) << error;
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;

    EXPECT_EQ(download<double>(gpu, dsum, 1)[0], std::accumulate(x.begin(), x.end(), 0.0));
    const auto c = download<float>(gpu, dc, static_cast<size_t>(M * N));
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double ref = 0;
            for (int64_t k = 0; k < K; ++k)
                ref += static_cast<double>(a[static_cast<size_t>(i * K + k)]) * b[static_cast<size_t>(k * N + j)];
            ASSERT_NEAR(c[static_cast<size_t>(i * N + j)], ref, 1e-4) << i << "," << j;
        }
}

TEST(UserspaceLaunch, ATensorOutsideEveryAllocationIsRefused) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    const uint64_t da = upload(gpu, std::vector<float>(100)), dout = upload(gpu, std::vector<float>(100));
    std::string error;
    // One element past the end of the output allocation.
    const auto ta = tensor(da, CB_DTYPE_FLOAT32, {100});
    const auto tout = tensor(dout + 4, CB_DTYPE_FLOAT32, {100});
    const std::vector<cb_kernel_arg> args = {bytes_of(ta), bytes_of(ta), bytes_of(tout)};
    EXPECT_EQ(gpu.launch_builtin(launch_of("add", CB_DTYPE_FLOAT32, args), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("outside any live allocation"), std::string::npos) << error;
    // A pointer into no allocation at all, and a freed one.
    const auto nowhere = tensor(0x1234, CB_DTYPE_FLOAT32, {100});
    const auto tout_ok = tensor(dout, CB_DTYPE_FLOAT32, {100});
    const std::vector<cb_kernel_arg> args2 = {bytes_of(nowhere), bytes_of(ta), bytes_of(tout_ok)};
    EXPECT_EQ(gpu.launch_builtin(launch_of("add", CB_DTYPE_FLOAT32, args2), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(gpu.mem_free(da, error), CB_OK);
    const std::vector<cb_kernel_arg> args3 = {bytes_of(ta), bytes_of(ta), bytes_of(tout_ok)};
    EXPECT_EQ(gpu.launch_builtin(launch_of("add", CB_DTYPE_FLOAT32, args3), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    // A bad call is refused by the parser with its message.
    EXPECT_EQ(gpu.launch_builtin(launch_of("no_such_kernel", CB_DTYPE_FLOAT32, args), nullptr, error),
              CB_ERR_NOT_FOUND);
    EXPECT_NE(error.find("no_such_kernel"), std::string::npos) << error;
    EXPECT_EQ(gpu.device_synchronize(error), CB_OK) << error;
}

}  // namespace
}  // namespace cudabridge::test

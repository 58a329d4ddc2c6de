// Host kernels (CB_MODULE_HOST_KERNELS) through the userspace driver and the ring on the simulated
// GPU: results checked against the host, grids of several blocks in three dimensions, what a
// kernel sees of its arguments, kernel faults reported at the next synchronize, refusals before
// anything is queued, and unload waiting for queued launches.
#include "sim_bench.hpp"
#include "test_kernels.hpp"

#include "userspace/driver/device_objects.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace cudabridge::test {
namespace {

namespace tk = cb_test_kernels;

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

cb_kernel_arg ptr(uint64_t p) {
    cb_kernel_arg a{};
    a.type = CB_ARG_DEVICE_PTR;
    a.value.device_ptr = p;
    return a;
}
cb_kernel_arg i64(int64_t v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_INT64;
    a.value.i64 = v;
    return a;
}
cb_kernel_arg u64(uint64_t v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_UINT64;
    a.value.u64 = v;
    return a;
}

cb_kernel_launch launch(const char* name, const std::vector<cb_kernel_arg>& args, uint32_t gx, uint32_t bx = 1,
                        uint32_t gy = 1, uint32_t gz = 1) {
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = name;
    l.grid[0] = gx;
    l.grid[1] = gy;
    l.grid[2] = gz;
    l.block[0] = bx;
    l.block[1] = l.block[2] = 1;
    l.args = args.data();
    l.arg_count = args.size();
    return l;
}

nv::userspace_module* load(nv::userspace_device& gpu) {
    std::string error, log;
    nv::userspace_module* m = nullptr;
    const cb_host_kernel_module image = tk::module();
    EXPECT_EQ(gpu.module_load(&image, sizeof image, CB_MODULE_HOST_KERNELS, m, log, error), CB_OK) << error;
    return m;
}

TEST(UserspaceHostKernels, VectorAddOverManyBlocksOnBothStreams) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    nv::userspace_module* m = load(gpu);
    ASSERT_NE(m, nullptr);
    const int64_t n = 10007;
    std::vector<float> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) {
        a[static_cast<size_t>(i)] = static_cast<float>(i) * 0.25f;
        b[static_cast<size_t>(i)] = 7.0f - static_cast<float>(i % 11);
    }
    const uint64_t da = upload(gpu, a), db = upload(gpu, b), dc = upload(gpu, std::vector<float>(n));
    const std::vector<cb_kernel_arg> args = {ptr(da), ptr(db), ptr(dc), i64(n)};
    std::string error;
    const uint32_t blocks = static_cast<uint32_t>((n + 255) / 256);  // 40 blocks of 256
    ASSERT_EQ(gpu.launch_kernel(m, launch("vector_add", args, blocks, 256), nullptr, error), CB_OK) << error;
    auto c = download<float>(gpu, dc, static_cast<size_t>(n));
    for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;

    // Again on a stream, into a cleared output, with blocks of 64.
    ASSERT_EQ(gpu.memset8(dc, 0, static_cast<size_t>(n) * sizeof(float), nullptr, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    ASSERT_EQ(gpu.launch_kernel(m, launch("vector_add", args, static_cast<uint32_t>((n + 63) / 64), 64), s, error),
              CB_OK)
        << error;
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    c = download<float>(gpu, dc, static_cast<size_t>(n));
    for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST(UserspaceHostKernels, EveryBlockOfAThreeDimensionalGridRunsOnce) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    nv::userspace_module* m = load(gpu);
    const uint64_t out = upload(gpu, std::vector<int32_t>(5 * 3 * 2, 0));
    std::string error;
    ASSERT_EQ(gpu.launch_kernel(m, launch("mark_blocks", {ptr(out)}, 5, 32, 3, 2), nullptr, error), CB_OK) << error;
    const auto marks = download<int32_t>(gpu, out, 30);
    for (int32_t i = 0; i < 30; ++i) EXPECT_EQ(marks[static_cast<size_t>(i)], i + 1) << i;
}

TEST(UserspaceHostKernels, AKernelSeesItsArguments) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    nv::userspace_module* m = load(gpu);
    std::string error;
    const uint64_t out = upload(gpu, std::vector<int64_t>(6, -1));
    uint64_t region = 0;
    ASSERT_EQ(gpu.mem_alloc(1000, region, error), CB_OK);
    cb_kernel_arg f{};
    f.type = CB_ARG_FLOAT64;
    f.value.f64 = 2.25;
    const tk::by_value v{-7, 123456};
    cb_kernel_arg bytes{};
    bytes.type = CB_ARG_BYTES;
    bytes.size = sizeof v;
    bytes.value.bytes = &v;
    const std::vector<cb_kernel_arg> args = {ptr(out), ptr(region + 100), ptr(0), f, bytes};
    ASSERT_EQ(gpu.launch_kernel(m, launch("report_args", args, 1), nullptr, error), CB_OK) << error;
    const auto seen = download<int64_t>(gpu, out, 6);
    EXPECT_EQ(seen[0], 900);  // bytes from the pointer to the end of its 1000-byte allocation
    EXPECT_EQ(seen[1], 1);    // the null pointer has no buffer
    EXPECT_EQ(seen[2], 9);
    EXPECT_EQ(seen[3], -7);
    EXPECT_EQ(seen[4], 123456);
    EXPECT_EQ(static_cast<uint64_t>(seen[5]), region + 100);  // the launched device address
}

TEST(UserspaceHostKernels, AKernelFaultReachesTheNextSynchronize) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    nv::userspace_module* m = load(gpu);
    std::string error;
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    ASSERT_EQ(gpu.launch_kernel(m, launch("fail_in_block_3", {}, 8), s, error), CB_OK) << error;
    error.clear();
    EXPECT_EQ(gpu.stream_synchronize(s, error), CB_ERR_INTERNAL);
    EXPECT_NE(error.find("'fail_in_block_3'"), std::string::npos) << error;
    EXPECT_NE(error.find("CB_ERR_INVALID_ARGUMENT"), std::string::npos) << error;
    EXPECT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;  // reported once
    // On the null stream the launch itself reports it; a throwing kernel is a fault too.
    error.clear();
    EXPECT_EQ(gpu.launch_kernel(m, launch("fail_in_block_3", {}, 4), nullptr, error), CB_ERR_INTERNAL);
    EXPECT_NE(error.find("fail_in_block_3"), std::string::npos) << error;
    error.clear();
    EXPECT_EQ(gpu.launch_kernel(m, launch("throws", {}, 2), nullptr, error), CB_ERR_INTERNAL);
    EXPECT_NE(error.find("'throws'"), std::string::npos) << error;
    // device_synchronize sees a stream's fault too.
    ASSERT_EQ(gpu.launch_kernel(m, launch("fail_in_block_3", {}, 5), s, error), CB_OK);
    error.clear();
    EXPECT_EQ(gpu.device_synchronize(error), CB_ERR_INTERNAL);
    EXPECT_NE(error.find("fail_in_block_3"), std::string::npos) << error;
    EXPECT_EQ(gpu.stream_synchronize(s, error), CB_ERR_INTERNAL);
    EXPECT_EQ(gpu.device_synchronize(error), CB_OK) << error;
}

TEST(UserspaceHostKernels, BadLaunchesAreRefusedBeforeAnythingIsQueued) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    nv::userspace_module* m = load(gpu);
    std::string error;
    const uint64_t a = upload(gpu, std::vector<float>(100)), c = upload(gpu, std::vector<float>(100));
    EXPECT_EQ(gpu.launch_kernel(m, launch("no_such_kernel", {}, 1), nullptr, error), CB_ERR_NOT_FOUND);
    EXPECT_NE(error.find("vector_add"), std::string::npos) << error;  // names what the module has
    EXPECT_EQ(gpu.launch_kernel(m, launch(nullptr, {}, 1), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    // Past every allocation, into a freed one, and into nothing.
    const std::vector<cb_kernel_arg> past = {ptr(a), ptr(a), ptr(c + 400), i64(100)};
    EXPECT_EQ(gpu.launch_kernel(m, launch("vector_add", past, 1, 128), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("argument 2"), std::string::npos) << error;
    EXPECT_NE(error.find("not inside a live allocation"), std::string::npos) << error;
    const std::vector<cb_kernel_arg> nowhere = {ptr(0x1234), ptr(a), ptr(c), i64(100)};
    EXPECT_EQ(gpu.launch_kernel(m, launch("vector_add", nowhere, 1, 128), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(gpu.mem_free(a, error), CB_OK);
    const std::vector<cb_kernel_arg> freed = {ptr(a), ptr(c), ptr(c), i64(100)};
    EXPECT_EQ(gpu.launch_kernel(m, launch("vector_add", freed, 1, 128), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.launch_kernel(m, launch("vector_add", {}, 0, 1), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.launch_kernel(m, launch("vector_add", {}, 1, 2048), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.launch_kernel(nullptr, launch("vector_add", {}, 1), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    // A kernel given too short a buffer refuses by itself: a fault, not a crash.
    const std::vector<cb_kernel_arg> shortish = {ptr(c), ptr(c), ptr(c), i64(1000)};
    EXPECT_EQ(gpu.launch_kernel(m, launch("vector_add", shortish, 1, 128), nullptr, error), CB_ERR_INTERNAL);
    EXPECT_EQ(gpu.device_synchronize(error), CB_OK) << error;
}

TEST(UserspaceHostKernels, BadModuleImagesAndNoRegistry) {
    bench_options options;
    auto registry = options.modules;
    sim_bench bench(options);
    auto& gpu = bench.gpu();
    std::string error, log;
    nv::userspace_module* m = nullptr;
    const cb_host_kernel twice[] = {{"k", &tk::vector_add}, {"k", &tk::mark_blocks}};
    cb_host_kernel_module image{};
    image.struct_size = sizeof image;
    image.kernels = twice;
    image.kernel_count = 2;
    EXPECT_EQ(gpu.module_load(&image, sizeof image, CB_MODULE_HOST_KERNELS, m, log, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("named twice"), std::string::npos) << error;
    image.kernel_count = 0;
    EXPECT_EQ(gpu.module_load(&image, sizeof image, CB_MODULE_HOST_KERNELS, m, log, error), CB_ERR_INVALID_ARGUMENT);
    image.kernel_count = 1;
    EXPECT_EQ(gpu.module_load(&image, 4, CB_MODULE_HOST_KERNELS, m, log, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(registry->size(), 0u);  // nothing registered by a refused image

    bench_options without;
    without.modules = nullptr;
    sim_bench other(without);
    const cb_host_kernel_module good = tk::module();
    EXPECT_EQ(other.gpu().module_load(&good, sizeof good, CB_MODULE_HOST_KERNELS, m, log, error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("simulated GPUs only"), std::string::npos) << error;
}

// A reset stops the command engine, but a command already running finishes first (a host
// kernel cannot be interrupted inside a block). The driver reprograms the ring, and its owner may
// free host buffers, only once the engine is idle: reset returns after the running kernel did.
TEST(UserspaceHostKernels, SoftResetReturnsOnlyOnceTheRunningCommandHasFinished) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    nv::userspace_module* m = load(gpu);
    std::string error;
    const uint64_t out = upload(gpu, std::vector<int32_t>(64, 0));
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    tk::gate gate;
    const std::vector<cb_kernel_arg> args = {u64(reinterpret_cast<uintptr_t>(&gate)), ptr(out), i64(64)};
    ASSERT_EQ(gpu.launch_kernel(m, launch("wait_for_gate", args, 1), s, error), CB_OK) << error;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!gate.kernel_started.load() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(gate.kernel_started.load());
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        gate.open.store(true);
    });
    const cb_status reset = gpu.reset(CB_RESET_SOFT, error);
    const bool done_at_return = gate.kernel_done.load();
    opener.join();
    ASSERT_EQ(reset, CB_OK) << error;
    EXPECT_TRUE(done_at_return);
    const auto values = download<int32_t>(gpu, out, 64);  // and the ring works after the reset
    EXPECT_EQ(values[63], 64);
}

TEST(UserspaceHostKernels, UnloadWaitsForQueuedLaunchesAndCloseUnregisters) {
    bench_options options;
    auto registry = options.modules;
    sim_bench bench(options);
    auto& gpu = bench.gpu();
    nv::userspace_module* m = load(gpu);
    EXPECT_EQ(registry->size(), 1u);
    std::string error;
    const uint64_t out = upload(gpu, std::vector<int32_t>(64, 0));
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    tk::gate gate;
    const std::vector<cb_kernel_arg> args = {u64(reinterpret_cast<uintptr_t>(&gate)), ptr(out), i64(64)};
    ASSERT_EQ(gpu.launch_kernel(m, launch("wait_for_gate", args, 1), s, error), CB_OK) << error;
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        gate.open.store(true);
    });
    ASSERT_EQ(gpu.module_unload(m, error), CB_OK) << error;
    opener.join();
    EXPECT_TRUE(gate.kernel_done.load());  // unload returned only after the launch ran
    EXPECT_EQ(registry->size(), 0u);
    EXPECT_EQ(gpu.launch_kernel(m, launch("vector_add", {}, 1), nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.module_unload(m, error), CB_ERR_INVALID_ARGUMENT);
    const auto values = download<int32_t>(gpu, out, 64);
    for (int32_t i = 0; i < 64; ++i) EXPECT_EQ(values[static_cast<size_t>(i)], i + 1);

    load(gpu);
    load(gpu);
    EXPECT_EQ(registry->size(), 2u);
    ASSERT_EQ(gpu.close(error), CB_OK) << error;
    EXPECT_EQ(registry->size(), 0u);  // close unloaded them
}

}  // namespace
}  // namespace cudabridge::test

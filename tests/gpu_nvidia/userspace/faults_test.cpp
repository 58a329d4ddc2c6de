// Faults: a device unplugged mid-stream or mid-copy makes pending and later calls answer
// CB_ERR_DEVICE_LOST instead of hanging; a hung device is found lost; a device that stops
// taking commands times out with the fence named; IOMMU exhaustion, wire errors and ring errors
// come back as statuses with messages; a function-level reset brings a hung device back.
#include "sim_bench.hpp"
#include "test_pattern.hpp"

#include "common/hw/registers.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace cudabridge::test {
namespace {

bench_options short_timeout(bool interrupts = true) {
    bench_options o;
    o.driver.timeout_ms = 5000;
    o.driver.use_interrupts = interrupts;
    return o;
}

void expect_lost_everywhere(nv::userspace_device& gpu, nv::userspace_stream* s) {
    std::string error;
    uint64_t p = 0, counter = 0;
    std::vector<uint8_t> host(64);
    EXPECT_EQ(gpu.mem_alloc(256, p, error), CB_ERR_DEVICE_LOST);
    EXPECT_NE(error.find("lost"), std::string::npos) << error;
    EXPECT_EQ(gpu.memcpy_h2d(1ull << 40, host.data(), host.size(), s, error), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(gpu.stream_synchronize(s, error), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(gpu.stream_query(s, error), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(gpu.device_synchronize(error), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(gpu.heartbeat(counter, error), CB_ERR_DEVICE_LOST);
    cb_gpu_telemetry t{};
    EXPECT_EQ(gpu.get_telemetry(t, error), CB_ERR_DEVICE_LOST);
    EXPECT_TRUE(gpu.lost());
}

class UserspaceLoss : public ::testing::TestWithParam<bool> {};

TEST_P(UserspaceLoss, UnplugWhileAStreamIsBusy) {
    sim_bench bench(short_timeout(GetParam()));
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 16u << 20;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    for (int i = 0; i < 400; ++i) ASSERT_EQ(gpu.memset8(a, static_cast<uint8_t>(i), n, s, error), CB_OK) << error;
    std::thread puller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        usb4::fault_request pull;
        pull.unplug_now = true;
        bench.inject(pull);
    });
    const cb_status st = gpu.stream_synchronize(s, error);
    puller.join();
    if (st == CB_OK) GTEST_SKIP() << "the device finished before the unplug";
    EXPECT_EQ(st, CB_ERR_DEVICE_LOST) << error;
    expect_lost_everywhere(gpu, s);
    EXPECT_EQ(gpu.close(error), CB_OK) << error;
    EXPECT_EQ(gpu.close(error), CB_OK);
}

TEST_P(UserspaceLoss, UnplugInTheMiddleOfAHostCopy) {
    sim_bench bench(short_timeout(GetParam()));
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 32u << 20;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    const std::vector<uint8_t> src = pattern(n, 1);
    usb4::fault_request cut;
    cut.unplug_after_bytes = 5u << 20;
    bench.inject(cut);
    EXPECT_EQ(gpu.memcpy_h2d(a, src.data(), n, nullptr, error), CB_ERR_DEVICE_LOST) << error;
    EXPECT_FALSE(error.empty());
    expect_lost_everywhere(gpu, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Waiting, UserspaceLoss, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Interrupts" : "Polling"; });

TEST(UserspaceFaults, AHungDeviceIsLostAndAFunctionResetBringsItBack) {
    bench_options o;
    o.driver.timeout_ms = 300;
    sim_bench bench(o);
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 1u << 20;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    usb4::fault_request hang;
    hang.stuck = true;
    bench.inject(hang);
    const cb_status st = gpu.memset8(a, 1, n, nullptr, error);
    EXPECT_TRUE(st == CB_ERR_DEVICE_LOST || st == CB_ERR_TIMEOUT) << st << ": " << error;
    uint64_t counter = 0;
    EXPECT_EQ(gpu.heartbeat(counter, error), CB_ERR_DEVICE_LOST);
    EXPECT_TRUE(gpu.lost());

    // FLR through the link clears the hang; the driver sets the ring up again.
    ASSERT_EQ(gpu.reset(CB_RESET_FUNCTION, error), CB_OK) << error;
    EXPECT_FALSE(gpu.lost());
    EXPECT_EQ(gpu.heartbeat(counter, error), CB_OK) << error;
    uint64_t free_bytes = 0, total = 0;
    ASSERT_EQ(gpu.mem_info(free_bytes, total, error), CB_OK);
    EXPECT_EQ(free_bytes, total);  // a function reset releases VRAM
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    const std::vector<uint8_t> src = pattern(n, 2);
    std::vector<uint8_t> dst(n);
    ASSERT_EQ(gpu.memcpy_h2d(a, src.data(), n, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(dst.data(), a, n, s, error), CB_OK) << error;
    EXPECT_TRUE(dst == src);
}

TEST(UserspaceFaults, ADeviceThatTakesNoCommandsTimesOut) {
    bench_options o;
    o.driver.timeout_ms = 200;
    sim_bench bench(o);
    auto& gpu = bench.gpu();
    std::string error;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(4096, a, error), CB_OK);
    // Hold the engines in reset behind the driver's back: the ring stays, nothing runs.
    const uint32_t off = 0;
    ASSERT_EQ(bench.link().mmio_write(0, nv::hw::pmc_enable, &off, 4, CB_MMIO_DEVICE_NGNRNE), CB_OK);
    EXPECT_EQ(gpu.memset8(a, 1, 4096, nullptr, error), CB_ERR_TIMEOUT);
    EXPECT_NE(error.find("made no progress for 200 ms waiting for fence"), std::string::npos) << error;
    EXPECT_NE(error.find("last completed fence"), std::string::npos) << error;
    EXPECT_FALSE(gpu.lost());
    // A soft reset turns the engines back on (the driver writes PMC_ENABLE again).
    ASSERT_EQ(gpu.reset(CB_RESET_SOFT, error), CB_OK) << error;
    EXPECT_EQ(gpu.memset8(a, 1, 4096, nullptr, error), CB_OK) << error;
}

TEST(UserspaceFaults, AnExhaustedIommuIsAStatusNotACrash) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 1u << 20;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    const std::vector<uint8_t> src = pattern(n, 3);
    usb4::fault_request full;
    full.dart_exhausted = true;
    bench.inject(full);
    EXPECT_EQ(gpu.memcpy_h2d(a, src.data(), n, nullptr, error), CB_ERR_DMA_LIMIT);
    EXPECT_NE(error.find("mapping"), std::string::npos) << error;
    full.dart_exhausted = false;
    bench.inject(full);
    EXPECT_EQ(gpu.memcpy_h2d(a, src.data(), n, nullptr, error), CB_OK) << error;

    // Launches: their blocks travel from the arena mapped at init, so an exhausted IOMMU does not
    // stop them (a copy that needs a mapping of its own still fails).
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    cb_tensor_desc t{};
    t.device_ptr = a;
    t.dtype = CB_DTYPE_UINT8;
    t.ndim = 1;
    t.shape[0] = static_cast<int64_t>(n);
    t.strides[0] = 1;
    cb_kernel_arg args[2] = {};
    args[0].type = CB_ARG_BYTES;
    args[0].size = sizeof t;
    args[0].value.bytes = &t;
    args[1].type = CB_ARG_INT64;
    args[1].value.i64 = 9;
    cb_kernel_launch fill{};
    fill.struct_size = sizeof fill;
    fill.name = "fill";
    fill.dtype = CB_DTYPE_UINT8;
    fill.args = args;
    fill.arg_count = 2;
    for (int i = 0; i < 5; ++i) ASSERT_EQ(gpu.launch_builtin(fill, s, error), CB_OK) << error;
    full.dart_exhausted = true;
    bench.inject(full);
    EXPECT_EQ(gpu.launch_builtin(fill, s, error), CB_OK) << error;
    EXPECT_EQ(gpu.memcpy_h2d(a, src.data(), n, nullptr, error), CB_ERR_DMA_LIMIT);
    full.dart_exhausted = false;
    bench.inject(full);
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    std::vector<uint8_t> back(n);
    ASSERT_EQ(gpu.memcpy_d2h(back.data(), a, n, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](uint8_t v) { return v == 9; }));
}

TEST(UserspaceFaults, ARingErrorReachesDeviceSynchronize) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    // A doorbell past the ring, rung behind the driver's back: the device reports a ring error.
    const uint32_t bad = 1u << 20;
    ASSERT_EQ(bench.link().mmio_write(0, nv::hw::reg::ring_put, &bad, 4, CB_MMIO_DEVICE_NGNRNE), CB_OK);
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(4096, a, error), CB_OK);
    EXPECT_EQ(gpu.memset8(a, 1, 4096, nullptr, error), CB_OK) << error;  // the ring goes on
    EXPECT_EQ(gpu.device_synchronize(error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("ring error"), std::string::npos) << error;
    EXPECT_EQ(gpu.device_synchronize(error), CB_OK) << error;  // reported once
}

TEST(UserspaceFaults, WireErrorsFailTheCopyWithAMessage) {
    bench_options o;
    o.driver.timeout_ms = 5000;
    sim_bench bench(o);
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 256u << 10;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    const std::vector<uint8_t> src = pattern(n, 4);
    usb4::fault_request noisy;
    noisy.bit_error_rate = 0.05;  // every packet corrupt: replays run out
    bench.inject(noisy);
    const cb_status st = gpu.memcpy_h2d(a, src.data(), n, nullptr, error);
    EXPECT_NE(st, CB_OK);
    EXPECT_FALSE(error.empty());
    noisy.bit_error_rate = 0;
    bench.inject(noisy);
    ASSERT_EQ(gpu.reset(CB_RESET_SOFT, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_h2d(a, src.data(), n, nullptr, error), CB_OK) << error;
    std::vector<uint8_t> dst(n);
    ASSERT_EQ(gpu.memcpy_d2h(dst.data(), a, n, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(dst == src);
}

TEST(UserspaceFaults, CloseDrainsAndLaterCallsAreRefused) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    const uint64_t baseline = bench.counters().mappings;
    EXPECT_GT(baseline, 0u);  // the ring and the fence word
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(1u << 20, a, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    nv::userspace_event* e = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    ASSERT_EQ(gpu.event_create(e, error), CB_OK);
    for (int i = 0; i < 20; ++i) ASSERT_EQ(gpu.memset8(a, 7, 1u << 20, s, error), CB_OK);
    ASSERT_EQ(gpu.event_record(e, s, error), CB_OK);
    ASSERT_EQ(gpu.close(error), CB_OK) << error;
    EXPECT_EQ(bench.counters().mappings, 0u);
    EXPECT_EQ(gpu.mem_alloc(256, a, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("closed"), std::string::npos);
    EXPECT_EQ(gpu.stream_synchronize(s, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.close(error), CB_OK);
}

}  // namespace
}  // namespace cudabridge::test

// Event timing on the simulated GPU is modeled time (usb4 transport + nvidia family from the
// registry, RTX 5090 behind the default Thunderbolt 4 enclosure): events around a copy give the
// link's modeled transfer time, events around a built-in kernel its roofline estimate, idle time
// between events follows the wall clock, the heartbeat keeps moving, and the family's kernel
// time counts kernels only.
//
// These check the model's arithmetic, not this host's speed: the expected values are computed
// here from the link's reported bandwidth and the profile's published figures. Each measured
// pair is queued behind a large memset, so the engines stay busy from the first event to the
// last and no host scheduling gap enters the modeled clock.
#include "gpu_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace cudabridge::test {
namespace {

constexpr size_t blocker_bytes = 256u << 20;
constexpr uint64_t dma_piece_bytes = 4u << 20;  // the simulated GPU's DMA piece (dma_port.hpp)
constexpr int attempts = 3;                     // the best of them: a preempted host only adds

class nvidia_modeled_time : public gpu_test {
protected:
    void SetUp() override {
        gpu_test::SetUp();
        bring_up();
        ASSERT_EQ(g()->stream_create(gh(), dev, &stream), CB_OK);
        ASSERT_EQ(g()->event_create(gh(), dev, &start), CB_OK);
        ASSERT_EQ(g()->event_create(gh(), dev, &stop), CB_OK);
        blocker = alloc(blocker_bytes);
    }
    void TearDown() override {
        if (start) g()->event_destroy(gh(), start);
        if (stop) g()->event_destroy(gh(), stop);
        if (stream) g()->stream_destroy(gh(), stream);
        gpu_test::TearDown();
    }

    // A figure of the model's profile, from the family's control entry.
    double profile_figure(const std::string& field) {
        std::string reply(1 << 16, '\0');
        size_t needed = 0;
        EXPECT_EQ(g()->control(gh(), R"({"op":"profile","key":"rtx-5090"})", reply.data(), reply.size(), &needed),
                  CB_OK);
        const std::string key = "\"" + field + "\":";
        const size_t at = reply.find(key);
        EXPECT_NE(at, std::string::npos) << field;
        return at == std::string::npos ? 0 : std::stod(reply.substr(at + key.size()));
    }

    cb_link_status link_status() {
        cb_link_status s{};
        s.struct_size = sizeof s;
        EXPECT_EQ(t()->link_status(th(), link, &s), CB_OK);
        return s;
    }

    // The link's per-transfer latency: what one config read (a non-posted round trip) costs.
    double link_latency_ns() {
        const uint64_t before = link_status().modeled_time_ns;
        uint32_t id = 0;
        EXPECT_EQ(t()->config_read(th(), link, 0, &id, sizeof id), CB_OK);
        return static_cast<double>(link_status().modeled_time_ns - before);
    }

    // Modeled nanoseconds between two events around `work`, queued behind a memset that keeps
    // the engines busy; the smallest of a few tries.
    template <class Work>
    double timed(Work work) {
        double best = 1e300;
        for (int i = 0; i < attempts; ++i) {
            EXPECT_EQ(g()->memset8(gh(), dev, blocker, static_cast<uint8_t>(i), blocker_bytes, stream), CB_OK);
            EXPECT_EQ(g()->event_record(gh(), start, stream), CB_OK);
            work();
            EXPECT_EQ(g()->event_record(gh(), stop, stream), CB_OK);
            EXPECT_EQ(g()->stream_synchronize(gh(), stream), CB_OK) << core::last_error();
            float ms = 0;
            EXPECT_EQ(g()->event_elapsed_ms(gh(), start, stop, &ms), CB_OK) << core::last_error();
            best = std::min(best, static_cast<double>(ms) * 1e6);
        }
        return best;
    }

    void launch(const char* name, cb_dtype dtype, const std::vector<cb_kernel_arg>& args) {
        const cb_kernel_launch l = sdk::builtin_launch(name, dtype, args);
        EXPECT_EQ(g()->launch_builtin(gh(), dev, &l, stream), CB_OK) << core::last_error();
    }

    // max(bytes / memory bandwidth, flops / (cores × boost clock × 2)), in ns.
    // A kernel's roofline time plus the model's 3 us launch latency (work_cost.cpp).
    double roofline_ns(double bytes, double flops) {
        const double bytes_per_ns = profile_figure("memory_bandwidth_gbps");
        const double flops_per_ns = profile_figure("cuda_cores") * profile_figure("boost_clock_mhz") * 2 / 1000;
        return std::max(bytes / bytes_per_ns, flops / flops_per_ns) + 3000.0;
    }

    cb_gpu_stream* stream = nullptr;
    cb_gpu_event* start = nullptr;
    cb_gpu_event* stop = nullptr;
    uint64_t blocker = 0;
};

TEST_F(nvidia_modeled_time, EventsAroundAnH2dCopyGiveTheLinksModeledTransferTime) {
    const size_t n = 8u << 20;
    std::vector<uint8_t> host(n, 0x3C);
    ASSERT_EQ(g()->host_register(gh(), dev, host.data(), n), CB_OK) << core::last_error();
    const uint64_t dst = alloc(n);
    const cb_link_status s = link_status();
    EXPECT_EQ(s.is_simulated, 1);
    const double latency = link_latency_ns();
    EXPECT_GT(latency, 0);
    // bytes / GB/s is ns; one latency per DMA piece.
    const double expected =
        static_cast<double>(n) / s.h2d_bandwidth_gbs + latency * static_cast<double>(n / dma_piece_bytes);
    const double measured =
        timed([&] { EXPECT_EQ(g()->memcpy_h2d(gh(), dev, dst, host.data(), n, stream), CB_OK) << core::last_error(); });
    EXPECT_GE(measured, expected * 0.999);
    EXPECT_LE(measured, expected * 1.03);
    // 8 MiB at Thunderbolt 4's ~2.8 GB/s: about 3 ms, whatever this host's speed.
    EXPECT_NEAR(measured / 1e6, 8.0 * 1024 * 1024 / 2.8e6, 0.2);
    ASSERT_EQ(g()->host_unregister(gh(), dev, host.data()), CB_OK);
}

TEST_F(nvidia_modeled_time, EventsAroundBuiltinKernelsGiveTheirRooflineEstimate) {
    // Elementwise add of 1M float32: memory bound (three 4 MiB operands).
    const int64_t n = 1 << 20;
    const uint64_t a = alloc(4 * n), b = alloc(4 * n), c = alloc(4 * n);
    const auto ta = sdk::contiguous_tensor(a, CB_DTYPE_FLOAT32, {n});
    const auto tb = sdk::contiguous_tensor(b, CB_DTYPE_FLOAT32, {n});
    const auto tc = sdk::contiguous_tensor(c, CB_DTYPE_FLOAT32, {n});
    const double add_expected = roofline_ns(3.0 * 4 * n, static_cast<double>(n));
    const double add_measured = timed([&] {
        launch("add", CB_DTYPE_FLOAT32, {sdk::tensor_arg(ta), sdk::tensor_arg(tb), sdk::tensor_arg(tc)});
    });
    EXPECT_NEAR(add_measured, add_expected, add_expected * 0.01 + 1);

    // 512³ float32 matmul: compute bound, 2·m·n·k flops.
    const int64_t m = 512;
    const auto ma = sdk::contiguous_tensor(a, CB_DTYPE_FLOAT32, {m, m});
    const auto mb = sdk::contiguous_tensor(b, CB_DTYPE_FLOAT32, {m, m});
    const auto mc = sdk::contiguous_tensor(c, CB_DTYPE_FLOAT32, {m, m});
    const double mm_expected = roofline_ns(3.0 * 4 * m * m, 2.0 * m * m * m);
    const double mm_measured = timed([&] {
        launch("matmul", CB_DTYPE_FLOAT32, {sdk::tensor_arg(ma), sdk::tensor_arg(mb), sdk::tensor_arg(mc)});
    });
    EXPECT_NEAR(mm_measured, mm_expected, mm_expected * 0.01 + 1);
}

// The family's count of this process's kernel time grows by each kernel's modeled duration (the
// roofline estimate events give) and by nothing else: not copies, memsets or idle time.
TEST_F(nvidia_modeled_time, KernelTimeCountsTheKernelsModeledDurationsOnly) {
    ASSERT_TRUE(CB_HAS_FIELD(g(), cb_gpu_table, kernel_time) && g()->kernel_time);
    const auto kernel_time = [&] {
        uint64_t ns = 0;
        EXPECT_EQ(g()->kernel_time(gh(), dev, &ns), CB_OK) << core::last_error();
        return ns;
    };
    EXPECT_EQ(g()->kernel_time(gh(), dev, nullptr), CB_ERR_INVALID_ARGUMENT);
    const int64_t n = 1 << 20;
    const uint64_t a = alloc(4 * n), b = alloc(4 * n), c = alloc(4 * n);
    ASSERT_EQ(g()->device_synchronize(gh(), dev), CB_OK);
    const uint64_t before = kernel_time();
    std::vector<uint8_t> host(4 * n, 1);
    ASSERT_EQ(g()->memcpy_h2d(gh(), dev, a, host.data(), host.size(), stream), CB_OK);
    ASSERT_EQ(g()->memset8(gh(), dev, b, 2, 4 * n, stream), CB_OK);
    ASSERT_EQ(g()->device_synchronize(gh(), dev), CB_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(kernel_time(), before);  // copies, memsets and idle time are not kernels

    const auto ta = sdk::contiguous_tensor(a, CB_DTYPE_FLOAT32, {n});
    const auto tb = sdk::contiguous_tensor(b, CB_DTYPE_FLOAT32, {n});
    const auto tc = sdk::contiguous_tensor(c, CB_DTYPE_FLOAT32, {n});
    const int launches = 5;
    for (int i = 0; i < launches; ++i)
        launch("add", CB_DTYPE_FLOAT32, {sdk::tensor_arg(ta), sdk::tensor_arg(tb), sdk::tensor_arg(tc)});
    ASSERT_EQ(g()->stream_synchronize(gh(), stream), CB_OK);
    const double expected = launches * roofline_ns(3.0 * 4 * n, static_cast<double>(n));
    EXPECT_NEAR(static_cast<double>(kernel_time() - before), expected, expected * 0.01 + launches);
}

TEST_F(nvidia_modeled_time, IdleTimeBetweenEventsFollowsTheWallClock) {
    ASSERT_EQ(g()->event_record(gh(), start, stream), CB_OK);
    ASSERT_EQ(g()->event_synchronize(gh(), start), CB_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(g()->event_record(gh(), stop, stream), CB_OK);
    ASSERT_EQ(g()->event_synchronize(gh(), stop), CB_OK);
    float ms = 0;
    ASSERT_EQ(g()->event_elapsed_ms(gh(), start, stop, &ms), CB_OK) << core::last_error();
    EXPECT_GE(ms, 50.0f);  // at least the sleep: nothing ran, so the clock followed wall time
}

TEST_F(nvidia_modeled_time, TheHeartbeatKeepsAdvancingAroundWork) {
    uint64_t beat1 = 0, beat2 = 0, beat3 = 0;
    ASSERT_EQ(g()->heartbeat(gh(), dev, &beat1), CB_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(g()->heartbeat(gh(), dev, &beat2), CB_OK);
    EXPECT_GE(beat2 - beat1, 5'000'000u);
    ASSERT_EQ(g()->memset8(gh(), dev, blocker, 1, blocker_bytes, stream), CB_OK);
    ASSERT_EQ(g()->stream_synchronize(gh(), stream), CB_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_EQ(g()->heartbeat(gh(), dev, &beat3), CB_OK);
    // The memset's modeled time and the idle sleep after it, at least.
    EXPECT_GE(beat3 - beat2, static_cast<uint64_t>(roofline_ns(blocker_bytes, 0)) + 2'000'000u);
}

}  // namespace
}  // namespace cudabridge::test

// Telemetry, settings and their bounds, heartbeat, and resets, all through the registers.
#include "sim_bench.hpp"

#include <cudabridge/cpp/builtin_args.hpp>
#include "test_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cudabridge::test {
namespace {

TEST(UserspaceManagement, TelemetryReadsTheModel) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(3u << 20, a, error), CB_OK);
    cb_gpu_telemetry t{};
    ASSERT_EQ(gpu.get_telemetry(t, error), CB_OK) << error;
    const nv::gpu_profile* p = gpu.profile();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(t.struct_size, sizeof t);
    EXPECT_EQ(t.is_simulated, 1);
    EXPECT_GT(t.temperature_c, 0.0);
    EXPECT_LT(t.temperature_c, p->shutdown_temp_c);
    EXPECT_GT(t.power_w, 0.0);
    EXPECT_NEAR(t.power_limit_w, p->power_default_w, 0.001);
    EXPECT_GE(t.fan_percent, 0.0);  // the 5090 has fans
    EXPECT_GT(t.sm_clock_mhz, 0u);
    EXPECT_GT(t.memory_clock_mhz, 0u);
    EXPECT_EQ(t.memory_total, p->vram_bytes);
    EXPECT_EQ(t.memory_used, 3u << 20);
    EXPECT_GE(t.performance_state, 0);
    EXPECT_LE(t.performance_state, 15);
    EXPECT_GT(t.pcie_link_gen, 0u);
    EXPECT_GT(t.pcie_link_width, 0u);
    EXPECT_GT(t.time_ns, 0u);
}

// Utilization as NVML defines it: utilization.gpu is the time a kernel ran, utilization.memory the
// time device memory was read or written. Copies over the link alone leave the first at 0; copies
// inside VRAM move the second; a kernel moves the first.
TEST(UserspaceManagement, UtilizationCountsKernelsAndMemoryTrafficNotLinkCopies) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    const size_t bytes = 4u << 20;
    uint64_t a = 0, b = 0;
    ASSERT_EQ(gpu.mem_alloc(bytes, a, error), CB_OK) << error;
    ASSERT_EQ(gpu.mem_alloc(bytes, b, error), CB_OK) << error;
    std::vector<uint8_t> host(bytes, 7);
    for (int i = 0; i < 20; ++i) {
        ASSERT_EQ(gpu.memcpy_h2d(a, host.data(), bytes, nullptr, error), CB_OK) << error;
        ASSERT_EQ(gpu.memcpy_d2h(host.data(), a, bytes, nullptr, error), CB_OK) << error;
    }
    cb_gpu_telemetry t{};
    ASSERT_EQ(gpu.get_telemetry(t, error), CB_OK) << error;
    EXPECT_EQ(t.gpu_utilization, 0.0) << "copies over the link are no kernels";

    for (int i = 0; i < 200; ++i) ASSERT_EQ(gpu.memcpy_d2d(b, a, bytes, nullptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.get_telemetry(t, error), CB_OK) << error;
    EXPECT_EQ(t.gpu_utilization, 0.0) << "a copy inside VRAM is no kernel either";
    EXPECT_GT(t.memory_utilization, 0.0) << "but it reads and writes device memory";

    const auto ta = sdk::contiguous_tensor(a, CB_DTYPE_FLOAT32, {static_cast<int64_t>(bytes / 4)});
    const std::vector<cb_kernel_arg> args = {sdk::tensor_arg(ta), sdk::float64_arg(1.0)};
    for (int i = 0; i < 50; ++i)
        ASSERT_EQ(gpu.launch_builtin(sdk::builtin_launch("fill", CB_DTYPE_FLOAT32, args), nullptr, error), CB_OK)
            << error;
    ASSERT_EQ(gpu.get_telemetry(t, error), CB_OK) << error;
    EXPECT_GT(t.gpu_utilization, 0.0) << "kernels ran";
}

TEST(UserspaceManagement, SettingsInsideAndOutsideTheirBounds) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    const nv::gpu_profile* p = gpu.profile();
    ASSERT_NE(p, nullptr);
    cb_gpu_setting_limits lim{};
    ASSERT_EQ(gpu.get_setting_limits(lim, error), CB_OK) << error;
    EXPECT_NEAR(lim.min_power_w, p->power_min_w, 0.001);
    EXPECT_NEAR(lim.max_power_w, p->power_max_w, 0.001);
    EXPECT_NEAR(lim.default_power_w, p->power_default_w, 0.001);
    EXPECT_EQ(lim.fan_control, 1);
    EXPECT_LT(lim.min_sm_clock_mhz, lim.max_sm_clock_mhz);

    cb_gpu_settings s{};
    s.struct_size = sizeof s;
    s.fields = CB_SET_POWER_LIMIT | CB_SET_CLOCKS | CB_SET_FAN | CB_SET_PSTATE;
    s.power_limit_w = std::round((lim.min_power_w + lim.max_power_w) / 2);
    s.sm_clock_mhz = lim.max_sm_clock_mhz;
    s.memory_clock_mhz = 0;
    s.fan_percent = 55;
    s.performance_state = 2;
    ASSERT_EQ(gpu.apply_settings(s, error), CB_OK) << error;
    cb_gpu_settings now{};
    ASSERT_EQ(gpu.get_settings(now, error), CB_OK) << error;
    EXPECT_NEAR(now.power_limit_w, s.power_limit_w, 0.001);
    EXPECT_EQ(now.sm_clock_mhz, s.sm_clock_mhz);
    EXPECT_EQ(now.memory_clock_mhz, 0u);
    EXPECT_EQ(now.fan_percent, 55);
    EXPECT_EQ(now.performance_state, 2);

    // Out of bounds: refused with the field named, nothing changed (even the fields in bounds).
    cb_gpu_settings bad = s;
    bad.fan_percent = 30;
    bad.power_limit_w = lim.max_power_w + 50;
    EXPECT_EQ(gpu.apply_settings(bad, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("power_limit_w"), std::string::npos) << error;
    bad = s;
    bad.fields = CB_SET_CLOCKS;
    bad.sm_clock_mhz = lim.max_sm_clock_mhz + 1;
    EXPECT_EQ(gpu.apply_settings(bad, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("sm_clock_mhz"), std::string::npos) << error;
    bad.fields = CB_SET_PSTATE;
    bad.performance_state = 16;
    EXPECT_EQ(gpu.apply_settings(bad, error), CB_ERR_INVALID_ARGUMENT);
    bad.fields = CB_SET_FAN;
    bad.fan_percent = 101;
    EXPECT_EQ(gpu.apply_settings(bad, error), CB_ERR_INVALID_ARGUMENT);
    bad.fields = 1u << 12;
    EXPECT_EQ(gpu.apply_settings(bad, error), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(gpu.get_settings(now, error), CB_OK);
    EXPECT_NEAR(now.power_limit_w, s.power_limit_w, 0.001);
    EXPECT_EQ(now.fan_percent, 55);

    // Back to automatic fan; a hard reset restores the defaults.
    cb_gpu_settings fan_auto{};
    fan_auto.struct_size = sizeof fan_auto;
    fan_auto.fields = CB_SET_FAN;
    fan_auto.fan_percent = -1;
    ASSERT_EQ(gpu.apply_settings(fan_auto, error), CB_OK) << error;
    ASSERT_EQ(gpu.get_settings(now, error), CB_OK);
    EXPECT_EQ(now.fan_percent, -1);
    ASSERT_EQ(gpu.reset(CB_RESET_HARD, error), CB_OK) << error;
    ASSERT_EQ(gpu.get_settings(now, error), CB_OK);
    EXPECT_NEAR(now.power_limit_w, p->power_default_w, 0.001);
}

TEST(UserspaceManagement, APassiveBoardHasNoFanToSet) {
    bench_options o;
    o.profile = "l4";
    sim_bench bench(o);
    std::string error;
    cb_gpu_setting_limits lim{};
    ASSERT_EQ(bench.gpu().get_setting_limits(lim, error), CB_OK);
    EXPECT_EQ(lim.fan_control, 0);
    cb_gpu_telemetry t{};
    ASSERT_EQ(bench.gpu().get_telemetry(t, error), CB_OK);
    EXPECT_LT(t.fan_percent, 0.0);
    cb_gpu_settings s{};
    s.struct_size = sizeof s;
    s.fields = CB_SET_FAN;
    s.fan_percent = 50;
    EXPECT_EQ(bench.gpu().apply_settings(s, error), CB_ERR_UNSUPPORTED);
}

TEST(UserspaceManagement, HeartbeatAdvances) {
    sim_bench bench;
    std::string error;
    uint64_t first = 0, second = 0;
    ASSERT_EQ(bench.gpu().heartbeat(first, error), CB_OK) << error;
    ASSERT_EQ(bench.gpu().heartbeat(second, error), CB_OK) << error;
    EXPECT_GT(first, 0u);
    EXPECT_GE(second, first);
}

TEST(UserspaceManagement, SoftResetKeepsMemoryHardResetReleasesIt) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 100000;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    const std::vector<uint8_t> src = pattern(n, 8);
    ASSERT_EQ(gpu.memcpy_h2d(a, src.data(), n, nullptr, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);

    ASSERT_EQ(gpu.reset(CB_RESET_SOFT, error), CB_OK) << error;
    std::vector<uint8_t> dst(n);
    ASSERT_EQ(gpu.memcpy_d2h(dst.data(), a, n, s, error), CB_OK) << error;
    EXPECT_TRUE(dst == src);

    ASSERT_EQ(gpu.reset(CB_RESET_HARD, error), CB_OK) << error;
    uint64_t free_bytes = 0, total = 0;
    ASSERT_EQ(gpu.mem_info(free_bytes, total, error), CB_OK);
    EXPECT_EQ(free_bytes, total);
    EXPECT_EQ(gpu.mem_free(a, error), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    ASSERT_EQ(gpu.memcpy_d2h(dst.data(), a, n, s, error), CB_OK) << error;
    EXPECT_TRUE(std::all_of(dst.begin(), dst.end(), [](uint8_t v) { return v == 0; }));  // released
    ASSERT_EQ(gpu.memcpy_h2d(a, src.data(), n, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(dst.data(), a, n, s, error), CB_OK) << error;
    EXPECT_TRUE(dst == src);
    EXPECT_EQ(gpu.reset(CB_RESET_LINK_RETRAIN, error), CB_OK) << error;
    EXPECT_EQ(gpu.reset(static_cast<cb_reset_kind>(99), error), CB_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace cudabridge::test

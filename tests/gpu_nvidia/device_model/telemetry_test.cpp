// Telemetry registers respond to load (time injected with simulate_elapsed, and real work),
// settings writes inside / outside the profile's bounds, bounds registers, and the live state
// shared between two models of the same device.
#include "gpu_harness.hpp"

#include "sim/thermal/thermal_model.hpp"

#include <filesystem>
#include <unistd.h>

namespace cudabridge::test {
namespace {

constexpr uint32_t refused = static_cast<uint32_t>(CB_ERR_INVALID_ARGUMENT);

TEST(DeviceModelTelemetry, TemperatureAndPowerFollowLoad) {
    gpu_harness g("rtx-4090");
    const nv::gpu_profile& p = profile("rtx-4090");
    const uint32_t idle_temp = g.rd(hw::reg::temp_mc), idle_power = g.rd(hw::reg::power_mw);
    EXPECT_NEAR(idle_temp, p.ambient_temp_c * 1000, 2000);
    EXPECT_LT(idle_power, p.power_default_w * 1000 / 2);
    EXPECT_LE(g.rd(hw::reg::fan_percent), 100u);
    EXPECT_EQ(g.rd(hw::reg::mem_clock_mhz), p.memory_clock_mhz);

    g.model->simulate_elapsed(120, 1.0);  // two minutes flat out
    const uint32_t hot = g.rd(hw::reg::temp_mc), busy_power = g.rd(hw::reg::power_mw);
    EXPECT_GT(hot, idle_temp + 20000);
    EXPECT_GT(busy_power, idle_power * 3);
    EXPECT_LE(busy_power, static_cast<uint32_t>(p.power_default_w * 1000) + 1);
    EXPECT_GT(g.rd(hw::reg::gpu_util_permille), 900u);
    EXPECT_GT(g.rd(hw::reg::sm_clock_mhz), p.base_clock_mhz);
    EXPECT_EQ(g.rd(hw::reg::pstate_current), 0u);

    g.model->simulate_elapsed(1800, 0.0);  // half an hour idle
    EXPECT_LT(g.rd(hw::reg::temp_mc), hot - 20000);
    EXPECT_LT(g.rd(hw::reg::gpu_util_permille), 10u);
}

TEST(DeviceModelTelemetry, RealWorkCountsAsBusyTime) {
    gpu_harness g("rtx-4090");
    g.bring_up();
    const uint32_t power_before = g.rd(hw::reg::power_mw);
    uint64_t last = 0;
    for (int i = 0; i < 40; ++i) last = g.queue(gpu_harness::make(hw::opcode::memset8, hw::vram_base, i, 32u << 20));
    g.doorbell();
    ASSERT_TRUE(g.wait(last));
    // A memset writes device memory (utilization.memory) and draws power; it is no kernel, so
    // utilization.gpu, NVML's time a kernel ran, stays where it was.
    EXPECT_GT(g.rd(hw::reg::mem_util_permille), 0u);
    EXPECT_EQ(g.rd(hw::reg::gpu_util_permille), 0u);
    EXPECT_GT(g.rd(hw::reg::power_mw), power_before);
}

TEST(DeviceModelTelemetry, BoundsRegistersComeFromTheProfile) {
    gpu_harness g("rtx-5090");
    const nv::gpu_profile& p = profile("rtx-5090");
    const cb_gpu_setting_limits l = nv::setting_limits(p);
    EXPECT_EQ(g.rd(hw::reg::min_power_mw), static_cast<uint32_t>(l.min_power_w * 1000));
    EXPECT_EQ(g.rd(hw::reg::max_power_mw), static_cast<uint32_t>(l.max_power_w * 1000));
    EXPECT_EQ(g.rd(hw::reg::default_power_mw), static_cast<uint32_t>(l.default_power_w * 1000));
    EXPECT_EQ(g.rd(hw::reg::min_sm_clock), l.min_sm_clock_mhz);
    EXPECT_EQ(g.rd(hw::reg::max_sm_clock), l.max_sm_clock_mhz);
    EXPECT_EQ(g.rd(hw::reg::min_mem_clock), l.min_memory_clock_mhz);
    EXPECT_EQ(g.rd(hw::reg::max_mem_clock), l.max_memory_clock_mhz);
    EXPECT_EQ(g.rd(hw::reg::slowdown_temp_mc), static_cast<uint32_t>(p.slowdown_temp_c * 1000));
    EXPECT_EQ(g.rd(hw::reg::shutdown_temp_mc), static_cast<uint32_t>(p.shutdown_temp_c * 1000));
    EXPECT_EQ(g.rd(hw::reg::max_operating_temp_mc), static_cast<uint32_t>(p.max_operating_temp_c * 1000));
    EXPECT_EQ(g.rd(hw::reg::power_limit_mw), static_cast<uint32_t>(p.power_default_w * 1000));
}

TEST(DeviceModelTelemetry, SettingsInsideBoundsApplyOutsideAreRefused) {
    gpu_harness g("rtx-5090");
    const uint32_t max_power = g.rd(hw::reg::max_power_mw), min_power = g.rd(hw::reg::min_power_mw);

    g.wr(hw::reg::power_limit_mw, min_power);
    EXPECT_EQ(g.rd(hw::reg::settings_error), 0u);
    EXPECT_EQ(g.rd(hw::reg::power_limit_mw), min_power);
    g.wr(hw::reg::power_limit_mw, max_power + 1000);
    EXPECT_EQ(g.rd(hw::reg::settings_error), refused);
    EXPECT_EQ(g.rd(hw::reg::power_limit_mw), min_power);  // unchanged
    g.wr(hw::reg::power_limit_mw, min_power - 1000);
    EXPECT_EQ(g.rd(hw::reg::settings_error), refused);
    g.wr(hw::reg::power_limit_mw, max_power);
    EXPECT_EQ(g.rd(hw::reg::settings_error), 0u);  // the next accepted write clears it
    EXPECT_EQ(g.rd(hw::reg::power_limit_mw), max_power);

    const uint32_t max_sm = g.rd(hw::reg::max_sm_clock), max_mem = g.rd(hw::reg::max_mem_clock);
    g.wr(hw::reg::locked_sm_clock_mhz, max_sm);
    g.wr(hw::reg::locked_mem_clock_mhz, max_mem);
    EXPECT_EQ(g.rd(hw::reg::settings_error), 0u);
    EXPECT_EQ(g.rd(hw::reg::locked_sm_clock_mhz), max_sm);
    EXPECT_EQ(g.rd(hw::reg::locked_mem_clock_mhz), max_mem);
    g.wr(hw::reg::locked_sm_clock_mhz, max_sm + 1);
    EXPECT_EQ(g.rd(hw::reg::settings_error), refused);
    EXPECT_EQ(g.rd(hw::reg::locked_sm_clock_mhz), max_sm);
    g.wr(hw::reg::locked_sm_clock_mhz, 0);  // back to default
    EXPECT_EQ(g.rd(hw::reg::locked_sm_clock_mhz), 0u);
    EXPECT_EQ(g.rd(hw::reg::locked_mem_clock_mhz), max_mem);  // the other clock kept

    g.wr(hw::reg::fan_control, 55);
    EXPECT_EQ(g.rd(hw::reg::fan_control), 55u);
    EXPECT_EQ(g.rd(hw::reg::fan_percent), 55u);
    g.wr(hw::reg::fan_control, 101);
    EXPECT_EQ(g.rd(hw::reg::settings_error), refused);
    EXPECT_EQ(g.rd(hw::reg::fan_control), 55u);
    g.wr(hw::reg::fan_control, hw::fan_auto);
    EXPECT_EQ(g.rd(hw::reg::fan_control), hw::fan_auto);

    g.wr(hw::reg::pstate_request, 16);
    EXPECT_EQ(g.rd(hw::reg::settings_error), refused);
    g.wr(hw::reg::pstate_request, 12);
    EXPECT_EQ(g.rd(hw::reg::settings_error), 0u);
    EXPECT_EQ(g.rd(hw::reg::pstate_request), 12u);
    EXPECT_GE(g.rd(hw::reg::pstate_current), 12u);
}

TEST(DeviceModelTelemetry, PassiveBoardsHaveNoFan) {
    gpu_harness g("a100-pcie-40gb");
    EXPECT_EQ(g.rd(hw::reg::fan_percent), hw::no_fan);
    g.wr(hw::reg::fan_control, 50);
    EXPECT_EQ(g.rd(hw::reg::settings_error), static_cast<uint32_t>(CB_ERR_UNSUPPORTED));
    EXPECT_EQ(g.rd(hw::reg::fan_control), hw::fan_auto);
}

TEST(DeviceModelTelemetry, LiveStateIsSharedBetweenModelsOfOneDevice) {
    const auto dir = std::filesystem::temp_directory_path() / ("cb-devmodel-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    nv::device_model_options o;
    o.live_state_file = dir / "gpu0.live";
    o.device_id = "gpu0";
    {
        gpu_harness a("rtx-4090", o), b("rtx-4090", o);
        const uint32_t temp = b.rd(hw::reg::temp_mc);
        a.wr(hw::reg::power_limit_mw, a.rd(hw::reg::min_power_mw));
        EXPECT_EQ(b.rd(hw::reg::power_limit_mw), a.rd(hw::reg::min_power_mw));
        a.model->simulate_elapsed(120, 1.0);
        EXPECT_GT(b.rd(hw::reg::temp_mc), temp + 10000);
        // Errors counted in one show in the other.
        a.bring_up();
        ASSERT_TRUE(a.wait(a.submit(gpu_harness::make(static_cast<hw::opcode>(77)))));
        EXPECT_EQ(b.rd(hw::reg::xid_count), 1u);
        // A hard reset of one restores the default power limit for both.
        a.wr(hw::reg::reset, hw::reset_hard);
        EXPECT_EQ(b.rd(hw::reg::power_limit_mw), b.rd(hw::reg::default_power_mw));
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cudabridge::test

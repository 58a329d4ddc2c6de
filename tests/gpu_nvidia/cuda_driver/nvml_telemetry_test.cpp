// cb_gpu_telemetry filled from a fake NVML.
#include <gtest/gtest.h>

#include "nvidia_driver/cuda_driver/nvml_telemetry.hpp"

using namespace cudabridge::nv;

TEST(NvmlTelemetry, FillsFromNvml) {
    nvml_library nvml(CB_TEST_FAKE_NVML_OK);
    ASSERT_TRUE(nvml.available()) << nvml.status().reason;
    cb_gpu_telemetry t{};
    std::string msg;
    ASSERT_EQ(read_nvml_telemetry(nvml, 0, t, &msg), CB_OK) << msg;
    EXPECT_EQ(t.struct_size, sizeof(cb_gpu_telemetry));
    EXPECT_EQ(t.is_simulated, 0);  // measured on hardware
    EXPECT_GT(t.time_ns, 0u);
    EXPECT_DOUBLE_EQ(t.temperature_c, 65.0);
    EXPECT_DOUBLE_EQ(t.power_w, 250.5);
    EXPECT_DOUBLE_EQ(t.power_limit_w, 300.0);
    EXPECT_DOUBLE_EQ(t.fan_percent, -1.0);  // NOT_SUPPORTED on this board
    EXPECT_EQ(t.sm_clock_mhz, 1800u);
    EXPECT_EQ(t.memory_clock_mhz, 9501u);
    EXPECT_DOUBLE_EQ(t.gpu_utilization, 75.0);
    EXPECT_DOUBLE_EQ(t.memory_utilization, 30.0);
    EXPECT_EQ(t.memory_total, 24ull << 30);
    EXPECT_EQ(t.memory_used, 1ull << 30);
    EXPECT_EQ(t.performance_state, 2);
    EXPECT_EQ(t.throttle_reasons, static_cast<uint32_t>(CB_THROTTLE_SW_POWER_CAP));  // 0x100 masked off
    EXPECT_EQ(t.pcie_link_gen, 4u);
    EXPECT_EQ(t.pcie_link_width, 16u);
}

TEST(NvmlTelemetry, UnknownDeviceAndAbsentNvml) {
    cb_gpu_telemetry t{};
    std::string msg;
    nvml_library nvml(CB_TEST_FAKE_NVML_OK);
    EXPECT_EQ(read_nvml_telemetry(nvml, 7, t, &msg), CB_ERR_NOT_FOUND);
    EXPECT_EQ(t.is_simulated, 0);
    nvml_library none("/nonexistent/libnvidia-ml.so.1");
    EXPECT_EQ(read_nvml_telemetry(none, 0, t, &msg), CB_ERR_NO_DEVICE);
    EXPECT_NE(msg.find("not found"), std::string::npos);
}

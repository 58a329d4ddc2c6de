// No usable driver: a library that does not exist, and the CUDA toolkit's stub libcuda (cuInit
// answers CUDA_ERROR_STUB_LIBRARY). Construction succeeds, no device is seen, and every call
// refuses with the reason instead of crashing.
#include <gtest/gtest.h>

#include <cudabridge/builtin_kernels.h>

#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

using namespace cudabridge::nv;

namespace {

kernel_driver_options options_for(const std::string& cuda, const std::string& nvml) {
    kernel_driver_options o;
    o.cuda_library = cuda;
    o.nvml_library = nvml;
    return o;
}

// Every entry point, called with null or dangling handles: all must answer `code` with the
// availability reason.
void expect_every_call_refused(kernel_driver_backend& b, cb_status code, const std::string& reason) {
    std::string error;  // each call's message, read by check() after the call
    auto check = [&](cb_status s, const char* call) {
        EXPECT_EQ(s, code) << call << ": " << error;
        EXPECT_NE(error.find(reason), std::string::npos) << call << ": " << error;
        EXPECT_NE(error.find("not available"), std::string::npos) << call << ": " << error;
    };
    auto* dangling_device = reinterpret_cast<kd_device*>(0x1000);
    auto* dangling_stream = reinterpret_cast<kd_stream*>(0x2000);
    auto* dangling_event = reinterpret_cast<kd_event*>(0x3000);
    auto* dangling_module = reinterpret_cast<kd_module*>(0x4000);
    kd_device* device = nullptr;
    check(b.open(0, device, error), "open");
    EXPECT_EQ(device, nullptr);
    check(b.close(dangling_device, error), "close");
    cb_gpu_properties props{};
    check(b.properties(dangling_device, props, error), "properties");
    uint64_t ptr = 0, free = 0, total = 0;
    check(b.mem_alloc(dangling_device, 1024, ptr, error), "mem_alloc");
    check(b.mem_free(dangling_device, 0x1234, error), "mem_free");
    check(b.mem_info(dangling_device, free, total, error), "mem_info");
    char host[16] = {};
    check(b.memcpy_h2d(dangling_device, 0x1234, host, sizeof host, nullptr, error), "memcpy_h2d");
    check(b.memcpy_d2h(dangling_device, host, 0x1234, sizeof host, dangling_stream, error), "memcpy_d2h");
    check(b.memcpy_d2d(dangling_device, 0x1234, 0x5678, 16, nullptr, error), "memcpy_d2d");
    check(b.memset8(dangling_device, 0x1234, 7, 16, nullptr, error), "memset8");
    kd_stream* stream = nullptr;
    check(b.stream_create(dangling_device, stream, error), "stream_create");
    check(b.stream_destroy(dangling_stream, error), "stream_destroy");
    check(b.stream_synchronize(dangling_stream, error), "stream_synchronize");
    check(b.stream_query(dangling_stream, error), "stream_query");
    kd_event* event = nullptr;
    check(b.event_create(dangling_device, event, error), "event_create");
    check(b.event_record(dangling_event, nullptr, error), "event_record");
    check(b.event_synchronize(dangling_event, error), "event_synchronize");
    check(b.event_query(dangling_event, error), "event_query");
    float ms = 0;
    check(b.event_elapsed_ms(dangling_event, dangling_event, ms, error), "event_elapsed_ms");
    check(b.event_destroy(dangling_event, error), "event_destroy");
    check(b.synchronize(dangling_device, error), "synchronize");
    cb_kernel_launch launch{};
    launch.struct_size = sizeof launch;
    launch.name = "add";
    check(b.launch_builtin(dangling_device, launch, nullptr, error), "launch_builtin");
    kd_module* module = nullptr;
    std::string log;
    check(b.module_load(dangling_device, "x", 1, CB_MODULE_PTX, module, error, &log), "module_load");
    check(b.launch_kernel(dangling_module, launch, nullptr, error), "launch_kernel");
    check(b.module_unload(dangling_module, error), "module_unload");
    cb_gpu_telemetry t{};
    check(b.telemetry(dangling_device, t, error), "telemetry");
    kd_telemetry_details details;
    check(b.telemetry_details(dangling_device, details, error), "telemetry_details");
    cb_gpu_settings settings{};
    settings.struct_size = sizeof settings;
    check(b.settings(dangling_device, settings, error), "settings");
    cb_gpu_setting_limits limits{};
    check(b.setting_limits(dangling_device, limits, error), "setting_limits");
    check(b.apply_settings(dangling_device, settings, error), "apply_settings");
    check(b.reset(dangling_device, CB_RESET_SOFT, error), "reset");
    uint64_t counter = 0;
    check(b.heartbeat(dangling_device, counter, error), "heartbeat");
    check(b.make_current(dangling_device, error), "make_current");
    EXPECT_EQ(b.raw_context(dangling_device), nullptr);
    EXPECT_EQ(b.raw_stream(dangling_stream), nullptr);
}

}  // namespace

TEST(KernelDriverUnavailable, DriverAbsent) {
    kernel_driver_backend b(options_for("/nonexistent/cudabridge/libcuda.so.1", "/nonexistent/libnvidia-ml.so.1"));
    EXPECT_FALSE(b.available());
    EXPECT_EQ(b.device_count(), 0u);
    EXPECT_EQ(b.availability_status().status, CB_ERR_NO_DEVICE);
    EXPECT_NE(b.availability_status().reason.find("not found"), std::string::npos) << b.availability_status().reason;
    EXPECT_FALSE(b.nvml().available());
    expect_every_call_refused(b, CB_ERR_NO_DEVICE, "not found (no NVIDIA driver installed)");
}

TEST(KernelDriverUnavailable, ToolkitStubLibrary) {
#ifndef CB_TEST_CUDA_STUB
    GTEST_SKIP() << "no CUDA toolkit stub libcuda in this build";
#else
    kernel_driver_backend b(options_for(CB_TEST_CUDA_STUB, "/nonexistent/libnvidia-ml.so.1"));
    EXPECT_FALSE(b.available());
    EXPECT_EQ(b.device_count(), 0u);
    EXPECT_EQ(b.driver().init_result(), 34);
    EXPECT_NE(b.availability_status().reason.find("CUDA_ERROR_STUB_LIBRARY, 34"), std::string::npos)
        << b.availability_status().reason;
    expect_every_call_refused(b, CB_ERR_NO_DEVICE, "stub");
#endif
}

TEST(KernelDriverUnavailable, DefaultLibraryOnThisMachine) {
    // Whatever this machine has, construction must not throw, and the answers must agree.
    kernel_driver_backend b;
    if (b.available()) {
        EXPECT_GT(b.device_count(), 0u);
    } else {
        EXPECT_EQ(b.device_count(), 0u);
        EXPECT_FALSE(b.availability_status().reason.empty());
    }
}

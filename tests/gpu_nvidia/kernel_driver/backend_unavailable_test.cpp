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
    auto check = [&](const kernels::status& s, const char* call) {
        EXPECT_EQ(s.code, code) << call << ": " << s.message;
        EXPECT_NE(s.message.find(reason), std::string::npos) << call << ": " << s.message;
        EXPECT_NE(s.message.find("not available"), std::string::npos) << call << ": " << s.message;
    };
    auto* dangling_device = reinterpret_cast<kd_device*>(0x1000);
    auto* dangling_stream = reinterpret_cast<kd_stream*>(0x2000);
    auto* dangling_event = reinterpret_cast<kd_event*>(0x3000);
    auto* dangling_module = reinterpret_cast<kd_module*>(0x4000);
    kd_device* device = nullptr;
    check(b.open(0, device), "open");
    EXPECT_EQ(device, nullptr);
    check(b.close(dangling_device), "close");
    cb_gpu_properties props{};
    check(b.properties(dangling_device, props), "properties");
    uint64_t ptr = 0, free = 0, total = 0;
    check(b.mem_alloc(dangling_device, 1024, ptr), "mem_alloc");
    check(b.mem_free(dangling_device, 0x1234), "mem_free");
    check(b.mem_info(dangling_device, free, total), "mem_info");
    char host[16] = {};
    check(b.memcpy_h2d(dangling_device, 0x1234, host, sizeof host, nullptr), "memcpy_h2d");
    check(b.memcpy_d2h(dangling_device, host, 0x1234, sizeof host, dangling_stream), "memcpy_d2h");
    check(b.memcpy_d2d(dangling_device, 0x1234, 0x5678, 16, nullptr), "memcpy_d2d");
    check(b.memset8(dangling_device, 0x1234, 7, 16, nullptr), "memset8");
    kd_stream* stream = nullptr;
    check(b.stream_create(dangling_device, stream), "stream_create");
    check(b.stream_destroy(dangling_stream), "stream_destroy");
    check(b.stream_synchronize(dangling_stream), "stream_synchronize");
    check(b.stream_query(dangling_stream), "stream_query");
    kd_event* event = nullptr;
    check(b.event_create(dangling_device, event), "event_create");
    check(b.event_record(dangling_event, nullptr), "event_record");
    check(b.event_synchronize(dangling_event), "event_synchronize");
    check(b.event_query(dangling_event), "event_query");
    float ms = 0;
    check(b.event_elapsed_ms(dangling_event, dangling_event, ms), "event_elapsed_ms");
    check(b.event_destroy(dangling_event), "event_destroy");
    check(b.synchronize(dangling_device), "synchronize");
    cb_kernel_launch launch{};
    launch.struct_size = sizeof launch;
    launch.name = "add";
    check(b.launch_builtin(dangling_device, launch, nullptr), "launch_builtin");
    kd_module* module = nullptr;
    std::string log;
    check(b.module_load(dangling_device, "x", 1, CB_MODULE_PTX, module, &log), "module_load");
    check(b.launch_kernel(dangling_module, launch, nullptr), "launch_kernel");
    check(b.module_unload(dangling_module), "module_unload");
    cb_gpu_telemetry t{};
    check(b.telemetry(dangling_device, t), "telemetry");
    kd_telemetry_details details;
    check(b.telemetry_details(dangling_device, details), "telemetry_details");
    cb_gpu_settings settings{};
    settings.struct_size = sizeof settings;
    check(b.settings(dangling_device, settings), "settings");
    cb_gpu_setting_limits limits{};
    check(b.setting_limits(dangling_device, limits), "setting_limits");
    check(b.apply_settings(dangling_device, settings), "apply_settings");
    check(b.reset(dangling_device, CB_RESET_SOFT), "reset");
    uint64_t counter = 0;
    check(b.heartbeat(dangling_device, counter), "heartbeat");
    check(b.make_current(dangling_device), "make_current");
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

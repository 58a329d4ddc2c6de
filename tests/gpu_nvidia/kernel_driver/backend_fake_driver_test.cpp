// The backend over the fake libcuda / libnvml: which driver entry points each call reaches and
// with what (the _v2 exports, never the legacy ones), how NVML answers become statuses, handle
// checks, and the launches launch_builtin plans. No GPU is involved: the fake only records.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <chrono>
#include <fstream>

#include <cudabridge/host_kernels.h>

#include "fake_driver.hpp"

using namespace cudabridge::nv;
using namespace kd_test;

namespace {

class FakeDriver : public ::testing::Test {
protected:
    void SetUp() override {
        std::string error;
        ASSERT_TRUE(backend.available()) << backend.availability_status().reason;
        ASSERT_TRUE(log.ok());
        cb_status s = backend.open(0, device, error);
        ASSERT_EQ(s, CB_OK) << error;
        log.reset();
    }
    void TearDown() override {
        std::string error;
        if (device != nullptr) {
            EXPECT_EQ(backend.close(device, error), CB_OK);
        }
    }

    kernel_driver_backend backend{fake_options()};
    fake_log log;
    kd_device* device = nullptr;
};

}  // namespace

TEST_F(FakeDriver, DevicesAndProperties) {
    std::string error;
    EXPECT_EQ(backend.device_count(), 2u);
    kd_device* none = nullptr;
    cb_status s = backend.open(2, none, error);
    EXPECT_EQ(s, CB_ERR_NOT_FOUND);
    EXPECT_NE(error.find("the driver sees 2"), std::string::npos) << error;
    EXPECT_EQ(backend.open(-1, none, error), CB_ERR_NOT_FOUND);

    cb_gpu_properties p{};
    ASSERT_EQ(backend.properties(device, p, error), CB_OK);
    EXPECT_EQ(p.struct_size, sizeof p);
    EXPECT_EQ(p.is_simulated, 0);
    EXPECT_STREQ(p.backend, "kernel-driver");
    EXPECT_STREQ(p.name, "Fake GPU");
    EXPECT_STREQ(p.uuid, "GPU-abababab-abab-abab-abab-abababababab");
    EXPECT_STREQ(p.pci_bus_id, "0000:01:00.0");
    EXPECT_EQ(p.compute_major, 8);
    EXPECT_EQ(p.compute_minor, 9);
    EXPECT_EQ(p.sm_count, 16u);  // the fake answers each attribute with its own number
    EXPECT_EQ(p.total_memory, uint64_t{1} << 34);
    // From NVML, matched to the CUDA device by UUID.
    EXPECT_EQ(p.pci_vendor_id, 0x10de);
    EXPECT_EQ(p.pci_device_id, 0x2684);
    EXPECT_EQ(p.pci_subsystem_id, 0x16F310DEu);
    EXPECT_STREQ(p.architecture, "Ada Lovelace");
    EXPECT_EQ(p.clock_mhz, 2520u);  // the kHz attribute reads 13 kHz -> 0 MHz -> NVML's max clock
    EXPECT_EQ(p.memory_clock_mhz, 10501u);
}

TEST_F(FakeDriver, MemoryUsesTheVersionedEntryPoints) {
    std::string error;
    uint64_t ptr = 0;
    ASSERT_EQ(backend.mem_alloc(device, 1024, ptr, error), CB_OK);
    EXPECT_EQ(ptr, 0xD000u);  // the legacy cuMemAlloc would give 0xBAD
    EXPECT_TRUE(log.has("cuMemAlloc_v2(1024)")) << log.calls();
    ASSERT_EQ(backend.mem_alloc(device, 0, ptr, error), CB_OK);
    EXPECT_EQ(ptr, 0u);
    cb_status s = backend.mem_alloc(device, uint64_t{1} << 40, ptr, error);
    EXPECT_EQ(s, CB_ERR_OUT_OF_MEMORY);
    EXPECT_NE(error.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << error;
    EXPECT_NE(error.find("1099511627776 bytes requested"), std::string::npos) << error;
    EXPECT_EQ(backend.mem_free(device, 0xD000, error), CB_OK);
    EXPECT_TRUE(log.has("cuMemFree_v2(53248)")) << log.calls();
    uint64_t free = 0, total = 0;
    ASSERT_EQ(backend.mem_info(device, free, total, error), CB_OK);
    EXPECT_EQ(free, 100u);
    EXPECT_EQ(total, 200u);
}

TEST_F(FakeDriver, CopiesSyncAndAsync) {
    std::string error;
    char host[16] = {};
    kd_stream* stream = nullptr;
    ASSERT_EQ(backend.stream_create(device, stream, error), CB_OK);
    log.reset();
    EXPECT_EQ(backend.memcpy_h2d(device, 0xD000, host, 16, nullptr, error), CB_OK);
    EXPECT_EQ(backend.memcpy_h2d(device, 0xD000, host, 16, stream, error), CB_OK);
    EXPECT_EQ(backend.memcpy_d2h(device, host, 0xD000, 16, nullptr, error), CB_OK);
    EXPECT_EQ(backend.memcpy_d2h(device, host, 0xD000, 16, stream, error), CB_OK);
    EXPECT_EQ(backend.memcpy_d2d(device, 0xD000, 0xE000, 16, nullptr, error), CB_OK);
    EXPECT_EQ(backend.memcpy_d2d(device, 0xD000, 0xE000, 16, stream, error), CB_OK);
    EXPECT_EQ(backend.memset8(device, 0xD000, 7, 16, nullptr, error), CB_OK);
    EXPECT_EQ(backend.memset8(device, 0xD000, 7, 16, stream, error), CB_OK);
    EXPECT_EQ(log.calls(),
              "cuMemcpyHtoD_v2(16);cuMemcpyHtoDAsync_v2(16);cuMemcpyDtoH_v2(16);cuMemcpyDtoHAsync_v2(16);"
              "cuMemcpyDtoD_v2(16);cuMemcpyDtoDAsync_v2(16);cuMemsetD8_v2(16);cuMemsetD8Async(16);");
    log.reset();
    EXPECT_EQ(backend.memcpy_h2d(device, 0xD000, host, 0, nullptr, error), CB_OK);  // nothing to do
    EXPECT_EQ(log.calls(), "");
    EXPECT_EQ(backend.memcpy_h2d(device, 0xD000, nullptr, 16, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.memcpy_d2h(device, host, 0, 16, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.stream_destroy(stream, error), CB_OK);
}

TEST_F(FakeDriver, PinnedHostMemory) {
    std::string error;
    char host[64] = {};
    ASSERT_EQ(backend.host_register(device, host, sizeof host, error), CB_OK);
    EXPECT_EQ(log.calls(), "cuMemHostRegister_v2(64,3);");  // CU_MEMHOSTREGISTER_PORTABLE | DEVICEMAP
    cb_status s = backend.host_register(device, host + 8, 8, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"), std::string::npos) << error;
    kd_stream* stream = nullptr;
    ASSERT_EQ(backend.stream_create(device, stream, error), CB_OK);
    log.reset();
    EXPECT_EQ(backend.memcpy_h2d(device, 0xD000, host, 64, stream, error), CB_OK);
    EXPECT_EQ(backend.memcpy_d2h(device, host, 0xD000, 64, stream, error), CB_OK);
    EXPECT_EQ(log.calls(), "cuMemcpyHtoDAsync_v2(64);cuMemcpyDtoHAsync_v2(64);");
    log.reset();
    ASSERT_EQ(backend.host_unregister(device, host, error), CB_OK);
    EXPECT_EQ(log.calls(), "cuMemHostUnregister;");
    s = backend.host_unregister(device, host, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"), std::string::npos) << error;
    EXPECT_EQ(backend.host_register(device, nullptr, 8, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.host_register(device, host, 0, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.host_register(nullptr, host, 8, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.stream_destroy(stream, error), CB_OK);
}

TEST_F(FakeDriver, ManagedAndMappedHostMemory) {
    std::string error;
    uint64_t managed = 0;
    ASSERT_EQ(backend.mem_alloc_managed(device, 4096, managed, error), CB_OK) << error;
    EXPECT_EQ(managed, 0xE000u);
    EXPECT_EQ(log.calls(), "cuMemAllocManaged(4096,1);");  // CU_MEM_ATTACH_GLOBAL
    EXPECT_EQ(backend.mem_alloc_managed(device, 0, managed, error), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(backend.mem_free(device, 0xE000, error), CB_OK);

    char host[64] = {};
    uint64_t address = 0;
    EXPECT_EQ(backend.host_device_address(device, host, address, error), CB_ERR_NOT_FOUND);
    ASSERT_EQ(backend.host_register(device, host, sizeof host, error), CB_OK);
    log.reset();
    ASSERT_EQ(backend.host_device_address(device, host + 8, address, error), CB_OK) << error;
    EXPECT_EQ(address, reinterpret_cast<uint64_t>(host + 8));
    EXPECT_EQ(log.calls(), "cuMemHostGetDevicePointer_v2(0);");
    ASSERT_EQ(backend.host_unregister(device, host, error), CB_OK);
}

TEST_F(FakeDriver, StreamWaitEvent) {
    std::string error;
    kd_stream* stream = nullptr;
    kd_event* event = nullptr;
    ASSERT_EQ(backend.stream_create(device, stream, error), CB_OK);
    ASSERT_EQ(backend.event_create(device, event, error), CB_OK);
    log.reset();
    EXPECT_EQ(backend.stream_wait_event(device, stream, event, error), CB_OK);
    EXPECT_EQ(backend.stream_wait_event(device, nullptr, event, error), CB_OK);
    EXPECT_EQ(log.calls(), "cuStreamWaitEvent(0);cuStreamWaitEvent(0);");
    kd_device* other = nullptr;
    ASSERT_EQ(backend.open(1, other, error), CB_OK);
    kd_event* foreign = nullptr;
    ASSERT_EQ(backend.event_create(other, foreign, error), CB_OK);
    cb_status s = backend.stream_wait_event(device, stream, foreign, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("another device"), std::string::npos) << error;
    EXPECT_EQ(backend.stream_wait_event(other, stream, foreign, error), CB_ERR_INVALID_ARGUMENT);  // the stream's
    EXPECT_EQ(backend.stream_wait_event(device, stream, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.event_destroy(foreign, error), CB_OK);
    EXPECT_EQ(backend.close(other, error), CB_OK);
    EXPECT_EQ(backend.event_destroy(event, error), CB_OK);
    EXPECT_EQ(backend.stream_destroy(stream, error), CB_OK);
}

TEST_F(FakeDriver, HandlesAreChecked) {
    std::string error;
    kd_device* other = nullptr;
    ASSERT_EQ(backend.open(1, other, error), CB_OK);
    kd_stream* foreign = nullptr;
    ASSERT_EQ(backend.stream_create(other, foreign, error), CB_OK);
    char host[4] = {};
    cb_status s = backend.memcpy_h2d(device, 0xD000, host, 4, foreign, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("another device"), std::string::npos) << error;

    kd_stream* stream = nullptr;
    ASSERT_EQ(backend.stream_create(device, stream, error), CB_OK);
    EXPECT_EQ(backend.stream_query(stream, error), CB_OK);
    ASSERT_EQ(backend.stream_destroy(stream, error), CB_OK);
    s = backend.stream_synchronize(stream, error);  // destroyed: refused, never dereferenced
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("destroyed stream"), std::string::npos) << error;
    EXPECT_EQ(backend.stream_destroy(stream, error), CB_ERR_INVALID_ARGUMENT);

    kd_event *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(backend.event_create(device, a, error), CB_OK);
    ASSERT_EQ(backend.event_create(device, b, error), CB_OK);
    ASSERT_EQ(backend.event_create(other, c, error), CB_OK);
    EXPECT_EQ(backend.event_record(a, nullptr, error), CB_OK);
    EXPECT_EQ(backend.event_query(a, error), CB_ERR_BUSY);  // the fake answers CUDA_ERROR_NOT_READY
    float ms = 0;
    ASSERT_EQ(backend.event_elapsed_ms(a, b, ms, error), CB_OK);
    EXPECT_FLOAT_EQ(ms, 1.5f);
    EXPECT_EQ(backend.event_elapsed_ms(a, c, ms, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.event_destroy(a, error), CB_OK);
    EXPECT_EQ(backend.event_record(a, nullptr, error), CB_ERR_INVALID_ARGUMENT);

    // Closing a device ends what it owns: its stream and event are gone with it.
    ASSERT_EQ(backend.close(other, error), CB_OK);
    EXPECT_EQ(backend.stream_query(foreign, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.event_query(c, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.close(other, error), CB_ERR_INVALID_ARGUMENT);
    uint64_t ptr = 0;  // a pointer that was never a device handle
    EXPECT_EQ(backend.mem_alloc(reinterpret_cast<kd_device*>(&host), 1, ptr, error), CB_ERR_INVALID_ARGUMENT);
}

TEST_F(FakeDriver, TelemetryThroughNvml) {
    std::string error;
    cb_gpu_telemetry t{};
    ASSERT_EQ(backend.telemetry(device, t, error), CB_OK);
    EXPECT_EQ(t.is_simulated, 0);
    EXPECT_DOUBLE_EQ(t.temperature_c, 65);
    EXPECT_DOUBLE_EQ(t.power_w, 250.5);
    EXPECT_DOUBLE_EQ(t.power_limit_w, 300);
    EXPECT_LT(t.fan_percent, 0);  // no fan readout
    EXPECT_EQ(t.sm_clock_mhz, 1800u);
    EXPECT_EQ(t.pcie_link_gen, 4u);
    EXPECT_EQ(t.ecc_corrected, 0u);  // GeForce: ECC not supported, stays 0

    kd_telemetry_details d;
    ASSERT_EQ(backend.telemetry_details(device, d, error), CB_OK);
    EXPECT_DOUBLE_EQ(d.shutdown_temp_c, 80);
    EXPECT_DOUBLE_EQ(d.slowdown_temp_c, 81);
    EXPECT_DOUBLE_EQ(d.max_operating_temp_c, 83);
    EXPECT_DOUBLE_EQ(d.power_limit_default_w, 320);
    EXPECT_DOUBLE_EQ(d.power_limit_min_w, 100);
    EXPECT_DOUBLE_EQ(d.power_limit_max_w, 350);
    EXPECT_EQ(d.max_sm_clock_mhz, 2520u);
    EXPECT_EQ(d.max_memory_clock_mhz, 10501u);
    EXPECT_EQ(d.pcie_max_link_gen, 4u);
    EXPECT_EQ(d.pcie_max_link_width, 16u);
    EXPECT_EQ(d.pcie_tx_kb_per_s, 1000u);
    EXPECT_EQ(d.pcie_rx_kb_per_s, 2000u);
    EXPECT_EQ(d.energy_mj, 123456u);
}

// nvidia-smi's compute processes: NVML's list, each with its name and start time from /proc. The
// fake lists this process (512 MiB) and a pid that does not exist here, whose memory NVML does
// not know; it answers INSUFFICIENT_SIZE first, as NVML does when the list has no room.
TEST_F(FakeDriver, ComputeProcessesThroughNvml) {
    std::string error;
    std::vector<cb_gpu_process> listed;
    ASSERT_EQ(backend.processes(device, listed, error), CB_OK) << error;
    ASSERT_EQ(listed.size(), 2u);
    const cb_gpu_process& me = listed[0];
    EXPECT_EQ(me.pid, ::getpid());
    EXPECT_EQ(me.memory_used, 512ull << 20);
    EXPECT_EQ(me.flags, static_cast<uint32_t>(CB_GPU_PROCESS_COMPUTE));
    std::ifstream comm("/proc/self/comm");
    std::string name;
    std::getline(comm, name);
    EXPECT_EQ(std::string(me.name), name);
    const auto now_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
    EXPECT_GT(me.start_unix_ns, now_ns - 3600ull * 1'000'000'000ull) << "this test started within the hour";
    EXPECT_LE(me.start_unix_ns, now_ns);
    EXPECT_EQ(listed[1].memory_used, 0u) << "NVML_VALUE_NOT_AVAILABLE";
    EXPECT_STREQ(listed[1].name, "") << "not a process of this machine";
}

TEST_F(FakeDriver, SettingsLimitsAndPermissions) {
    std::string error;
    cb_gpu_setting_limits lim{};
    ASSERT_EQ(backend.setting_limits(device, lim, error), CB_OK);
    EXPECT_EQ(lim.min_sm_clock_mhz, 210u);
    EXPECT_EQ(lim.max_sm_clock_mhz, 2520u);
    EXPECT_EQ(lim.min_memory_clock_mhz, 405u);
    EXPECT_EQ(lim.max_memory_clock_mhz, 10501u);
    EXPECT_DOUBLE_EQ(lim.min_power_w, 100);
    EXPECT_DOUBLE_EQ(lim.max_power_w, 350);
    EXPECT_DOUBLE_EQ(lim.default_power_w, 320);
    EXPECT_EQ(lim.fan_control, 0);

    cb_gpu_settings cur{};
    ASSERT_EQ(backend.settings(device, cur, error), CB_OK);
    EXPECT_DOUBLE_EQ(cur.power_limit_w, 300);
    EXPECT_EQ(cur.performance_state, 2);
    EXPECT_EQ(cur.sm_clock_mhz, 0u);
    EXPECT_EQ(cur.fan_percent, -1);

    cb_gpu_settings req{};
    req.struct_size = sizeof req;
    req.fields = CB_SET_POWER_LIMIT;
    req.power_limit_w = 200;  // in range, but the fake answers NVML_ERROR_NO_PERMISSION
    cb_status s = backend.apply_settings(device, req, error);
    EXPECT_EQ(s, CB_ERR_PERMISSION);
    EXPECT_NE(error.find("needs root"), std::string::npos) << error;
    EXPECT_NE(error.find("NVML_ERROR_NO_PERMISSION"), std::string::npos) << error;

    req.power_limit_w = 500;  // above the board's 350 W
    s = backend.apply_settings(device, req, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("100..350 W"), std::string::npos) << error;
    req.power_limit_w = std::nan("");
    EXPECT_EQ(backend.apply_settings(device, req, error), CB_ERR_INVALID_ARGUMENT);

    req.fields = CB_SET_CLOCKS;
    req.sm_clock_mhz = 5000;
    EXPECT_EQ(backend.apply_settings(device, req, error), CB_ERR_INVALID_ARGUMENT);
    req.sm_clock_mhz = 1500;  // the SM lock succeeds in the fake; the memory-clock reset needs root
    s = backend.apply_settings(device, req, error);
    EXPECT_EQ(s, CB_ERR_PERMISSION);
    EXPECT_NE(error.find("needs root"), std::string::npos) << error;

    req.fields = CB_SET_FAN;
    req.fan_percent = 50;
    EXPECT_EQ(backend.apply_settings(device, req, error), CB_ERR_UNSUPPORTED);  // no fans
    req.fan_percent = 150;
    EXPECT_EQ(backend.apply_settings(device, req, error), CB_ERR_INVALID_ARGUMENT);
    req.fields = CB_SET_PSTATE;
    req.performance_state = 0;
    s = backend.apply_settings(device, req, error);
    EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("performance state"), std::string::npos) << error;
    req.struct_size = 4;
    EXPECT_EQ(backend.apply_settings(device, req, error), CB_ERR_INVALID_ARGUMENT);
}

TEST_F(FakeDriver, ResetIsHonestAndHeartbeatCounts) {
    std::string error;
    cb_status s = backend.reset(device, CB_RESET_HARD, error);
    EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("nvidia-smi -r -i 0000:01:00.0"), std::string::npos) << error;
    uint64_t counter = 0;
    ASSERT_EQ(backend.heartbeat(device, counter, error), CB_OK);
    EXPECT_EQ(counter, 123456u);  // NVML's energy counter
}

TEST(KernelDriverFakeNoNvml, CudaWorksWithoutNvml) {
    std::string error;
    kernel_driver_backend backend(fake_options(CB_TEST_FAKE_NVML_NODRIVER));
    ASSERT_TRUE(backend.available());
    EXPECT_FALSE(backend.nvml().available());
    kd_device* device = nullptr;
    ASSERT_EQ(backend.open(0, device, error), CB_OK);
    cb_gpu_properties p{};
    ASSERT_EQ(backend.properties(device, p, error), CB_OK);
    EXPECT_STREQ(p.architecture, "Ada Lovelace");  // from the compute capability
    EXPECT_EQ(p.pci_device_id, 0);
    cb_gpu_telemetry t{};
    cb_status s = backend.telemetry(device, t, error);
    EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("NVIDIA kernel driver not loaded"), std::string::npos) << error;
    uint64_t counter = 0;
    ASSERT_EQ(backend.heartbeat(device, counter, error), CB_OK);
    EXPECT_EQ(counter, 1u);  // no energy counter: the count of heartbeats
    ASSERT_EQ(backend.heartbeat(device, counter, error), CB_OK);
    EXPECT_EQ(counter, 2u);
    EXPECT_EQ(backend.close(device, error), CB_OK);
}

// ---- kernels ---------------------------------------------------------------------------------------

TEST_F(FakeDriver, BuiltinLaunchPlans) {
    std::string error;
    const cb_tensor_desc a = tensor(0x10000, CB_DTYPE_FLOAT32, {2, 3});
    const cb_tensor_desc b = tensor(0x20000, CB_DTYPE_FLOAT32, {3});
    const cb_tensor_desc out = tensor(0x30000, CB_DTYPE_FLOAT32, {2, 3});
    std::vector<cb_kernel_arg> args = {tensor_arg(a), tensor_arg(b), tensor_arg(out)};
    cb_status s = backend.launch_builtin(device, launch_of("add", CB_DTYPE_FLOAT32, args), nullptr, error);
    if (!kernel_driver_backend::has_builtin_kernels()) {
        EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
        EXPECT_NE(error.find("built without the CUDA toolkit"), std::string::npos) << error;
        return;
    }
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(log.functions(), std::vector<std::string>{"cb_binary_add_float32"});
    EXPECT_TRUE(log.has("cuLaunchKernel(")) << log.calls();

    // int32 + float32 computes in float64: both operands converted first, into scratch memory.
    log.reset();
    const cb_tensor_desc ai = tensor(0x10000, CB_DTYPE_INT32, {2, 3});
    const cb_tensor_desc out64 = tensor(0x30000, CB_DTYPE_FLOAT64, {2, 3});
    args = {tensor_arg(ai), tensor_arg(b), tensor_arg(out64)};
    s = backend.launch_builtin(device, launch_of("add", CB_DTYPE_FLOAT64, args), nullptr, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(log.functions(),
              (std::vector<std::string>{"cb_cast_float64_int32", "cb_cast_float64_float32", "cb_binary_add_float64"}));
    EXPECT_TRUE(log.has("cuMemAlloc_v2(48)")) << log.calls();  // no memory pools in the fake
    EXPECT_TRUE(log.has("cuMemFree_v2(")) << log.calls();

    // A bad call is refused by the shared parser before anything is launched.
    log.reset();
    const cb_tensor_desc wrong = tensor(0x30000, CB_DTYPE_FLOAT32, {3, 2});
    args = {tensor_arg(a), tensor_arg(b), tensor_arg(wrong)};
    s = backend.launch_builtin(device, launch_of("add", CB_DTYPE_FLOAT32, args), nullptr, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("output shape (3,2)"), std::string::npos) << error;
    EXPECT_EQ(log.calls(), "");
    s = backend.launch_builtin(device, launch_of("no_such_kernel", CB_DTYPE_FLOAT32, args), nullptr, error);
    EXPECT_EQ(s, CB_ERR_NOT_FOUND);
    const cb_tensor_desc odd = tensor(0x30002, CB_DTYPE_FLOAT32, {2, 3});  // would fault on a GPU
    args = {tensor_arg(a), tensor_arg(b), tensor_arg(odd)};
    s = backend.launch_builtin(device, launch_of("add", CB_DTYPE_FLOAT32, args), nullptr, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("not aligned"), std::string::npos) << error;
    // float16 has no fatbin kernels yet: refused, nothing launched (the simulated GPU computes it).
    log.reset();
    const cb_tensor_desc h = tensor(0x20000, CB_DTYPE_FLOAT16, {2, 3}), ho = tensor(0x30000, CB_DTYPE_FLOAT16, {2, 3});
    args = {tensor_arg(h), tensor_arg(h), tensor_arg(ho)};
    s = backend.launch_builtin(device, launch_of("add", CB_DTYPE_FLOAT16, args), nullptr, error);
    EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("float16 is not supported on a real GPU"), std::string::npos) << error;
    EXPECT_EQ(log.calls(), "");

    // Reductions: a long row split over blocks, then the partials combined; an inner axis per thread.
    log.reset();
    const cb_tensor_desc big = tensor(0x100000, CB_DTYPE_FLOAT32, {1000000});
    const cb_tensor_desc scalar = tensor(0x30000, CB_DTYPE_FLOAT32, {});
    args = {tensor_arg(big), tensor_arg(scalar), int_arg(CB_REDUCE_ALL_AXES)};
    ASSERT_EQ(backend.launch_builtin(device, launch_of("sum", CB_DTYPE_FLOAT32, args), nullptr, error), CB_OK);
    EXPECT_EQ(log.functions(),
              (std::vector<std::string>{"cb_reduce_rows_sum_float32", "cb_reduce_finish_sum_float32"}));
    log.reset();
    const cb_tensor_desc m = tensor(0x100000, CB_DTYPE_INT16, {4, 5});
    const cb_tensor_desc col = tensor(0x30000, CB_DTYPE_INT16, {5});
    args = {tensor_arg(m), tensor_arg(col), int_arg(0)};
    ASSERT_EQ(backend.launch_builtin(device, launch_of("max", CB_DTYPE_INT16, args), nullptr, error), CB_OK);
    EXPECT_EQ(log.functions(), std::vector<std::string>{"cb_reduce_cols_max_int16"});

    // float matmul without cuBLAS (kept out of this test) falls back to the simple kernel.
    log.reset();
    const cb_tensor_desc ma = tensor(0x100000, CB_DTYPE_FLOAT32, {2, 3});
    const cb_tensor_desc mb = tensor(0x200000, CB_DTYPE_FLOAT32, {3, 4});
    const cb_tensor_desc mc = tensor(0x300000, CB_DTYPE_FLOAT32, {2, 4});
    args = {tensor_arg(ma), tensor_arg(mb), tensor_arg(mc)};
    ASSERT_EQ(backend.launch_builtin(device, launch_of("matmul", CB_DTYPE_FLOAT32, args), nullptr, error), CB_OK);
    EXPECT_EQ(log.functions(), std::vector<std::string>{"cb_matmul_float32"});

    // fill is keyed by element size; random by dtype.
    log.reset();
    const cb_tensor_desc f = tensor(0x100000, CB_DTYPE_INT16, {7});
    args = {tensor_arg(f), float_arg(3.9)};
    ASSERT_EQ(backend.launch_builtin(device, launch_of("fill", CB_DTYPE_INT16, args), nullptr, error), CB_OK);
    const cb_tensor_desc r = tensor(0x100000, CB_DTYPE_FLOAT64, {7});
    args = {tensor_arg(r), u64_arg(42), u64_arg(0)};
    ASSERT_EQ(backend.launch_builtin(device, launch_of("random_uniform", CB_DTYPE_FLOAT64, args), nullptr, error),
              CB_OK);
    EXPECT_EQ(log.functions(), (std::vector<std::string>{"cb_fill_2", "cb_random_uniform_float64"}));
}

TEST_F(FakeDriver, ModulesAndUserLaunches) {
    std::string error;
    kd_module* module = nullptr;
    std::string log_text;
    EXPECT_EQ(backend.module_load(device, "garbage!", 8, CB_MODULE_FATBIN, module, error, &log_text),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.module_load(device, "garbage!", 8, CB_MODULE_CUBIN, module, error, &log_text),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.module_load(device, nullptr, 0, CB_MODULE_PTX, module, error, &log_text),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.module_load(device, "x", 1, 42, module, error, &log_text), CB_ERR_INVALID_ARGUMENT);

    const char ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n";
    ASSERT_EQ(backend.module_load(device, ptx, sizeof ptx, CB_MODULE_PTX, module, error, &log_text), CB_OK);
    EXPECT_TRUE(log.has("cuModuleLoadDataEx")) << log.calls();

    uint64_t ptr = 0xD000;
    std::vector<cb_kernel_arg> args(3);
    args[0].type = CB_ARG_DEVICE_PTR;
    args[0].value.device_ptr = ptr;
    args[1] = int_arg(7);
    args[2] = float_arg(0.5);
    cb_kernel_launch l = launch_of("scale", 0, args);
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.block[0] = 128;
    l.block[1] = l.block[2] = 1;
    log.reset();
    ASSERT_EQ(backend.launch_kernel(module, l, nullptr, error), CB_OK);
    EXPECT_EQ(log.calls(), "cuModuleGetFunction(scale);cuLaunchKernel(1,128);");

    // The fake reports three 8-byte parameters: two arguments are refused before the launch.
    l.arg_count = 2;
    cb_status s = backend.launch_kernel(module, l, nullptr, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("takes 3 parameters, got 2"), std::string::npos) << error;
    l.arg_count = 3;
    l.block[0] = 0;
    EXPECT_EQ(backend.launch_kernel(module, l, nullptr, error), CB_ERR_INVALID_ARGUMENT);

    EXPECT_EQ(backend.module_unload(module, error), CB_OK);
    EXPECT_EQ(backend.module_unload(module, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend.launch_kernel(module, l, nullptr, error), CB_ERR_INVALID_ARGUMENT);
}

TEST_F(FakeDriver, HostKernelModulesAreForSimulatedGpus) {
    std::string error;
    const cb_host_kernel_module image{sizeof(cb_host_kernel_module), 0, nullptr, 0};
    kd_module* module = nullptr;
    std::string log_text;
    cb_status s = backend.module_load(device, &image, sizeof image, CB_MODULE_HOST_KERNELS, module, error, &log_text);
    EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("host kernels run on simulated GPUs only; load PTX, CUBIN or CUDA source"), std::string::npos)
        << error;
    EXPECT_EQ(module, nullptr);
    EXPECT_EQ(log.calls(), "");
}

TEST_F(FakeDriver, Crc32cLaunchPlan) {
    std::string error;
    if (!kernel_driver_backend::has_builtin_kernels()) GTEST_SKIP() << "built without the CUDA toolkit";
    const cb_tensor_desc in = tensor(0x10000, CB_DTYPE_UINT8, {10000});
    const cb_tensor_desc out = tensor(0x30000, CB_DTYPE_INT64, {3});
    std::vector<cb_kernel_arg> args = {tensor_arg(in), tensor_arg(out), int_arg(4096)};
    cb_status s = backend.launch_builtin(device, launch_of("crc32c", CB_DTYPE_INT64, args), nullptr, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(log.functions(), std::vector<std::string>{"cb_crc32c"});
    EXPECT_TRUE(log.has("cuLaunchKernel(1,256)")) << log.calls();  // 3 chunks: one block
    log.reset();
    args[2] = int_arg(0);
    EXPECT_EQ(backend.launch_builtin(device, launch_of("crc32c", CB_DTYPE_INT64, args), nullptr, error),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(log.calls(), "");
}

TEST_F(FakeDriver, CudaSourceCompiledWithNvrtc) {
    std::string error;
    if (!backend.nvrtc().available()) GTEST_SKIP() << "NVRTC not on this machine: " << backend.nvrtc().status().reason;
    const std::string good = "extern \"C\" __global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n";
    kd_module* module = nullptr;
    std::string log_text;
    cb_status s =
        backend.module_load(device, good.data(), good.size(), CB_MODULE_CUDA_SOURCE, module, error, &log_text);
    ASSERT_EQ(s, CB_OK) << error << "\n" << log_text;
    EXPECT_TRUE(log.has("cuModuleLoadDataEx")) << log.calls();
    EXPECT_EQ(backend.module_unload(module, error), CB_OK);

    const std::string bad = "extern \"C\" __global__ void broken(float* x) { x[0] = undeclared_name; }\n";
    s = backend.module_load(device, bad.data(), bad.size(), CB_MODULE_CUDA_SOURCE, module, error, &log_text);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(module, nullptr);
    EXPECT_NE(error.find("sm_89"), std::string::npos) << error;
    EXPECT_NE(log_text.find("undeclared_name"), std::string::npos) << log_text;
}

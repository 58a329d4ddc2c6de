// The device side of the kernel-driver backend on a real GPU: properties, copies of every size
// and alignment, allocation until out of memory, streams and events, pinned copies ordered across
// streams by an event, user kernels compiled by NVRTC, telemetry and heartbeat.
#include <cstring>
#include <numeric>
#include <vector>

#include "real_gpu_fixture.hpp"

using namespace real_gpu;
using cudabridge::nv::kd_event;
using cudabridge::nv::kd_stream;

TEST_F(RealGpu, Properties) {
    std::string error;
    cb_gpu_properties p{};
    cb_status s = backend().properties(device(), p, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(p.is_simulated, 0);
    EXPECT_STREQ(p.backend, "kernel-driver");
    EXPECT_GT(std::strlen(p.name), 0u);
    EXPECT_EQ(std::string(p.uuid).rfind("GPU-", 0), 0u) << p.uuid;
    EXPECT_EQ(std::strlen(p.uuid), 40u) << p.uuid;
    EXPECT_GT(p.total_memory, 0u);
    EXPECT_GT(p.sm_count, 0u);
    EXPECT_GE(p.compute_major * 10 + p.compute_minor, 75);
    std::printf("device 0: %s, %s, compute %d.%d, %u SMs, %.1f GiB, bus %s\n", p.name, p.architecture, p.compute_major,
                p.compute_minor, p.sm_count, double(p.total_memory) / (1 << 30), p.pci_bus_id);
}

TEST_F(RealGpu, CopiesOfEverySizeAndAlignment) {
    std::string error;
    kd_stream* stream = nullptr;
    ASSERT_EQ(backend().stream_create(device(), stream, error), CB_OK);
    const std::size_t big = std::size_t{64} << 20;
    uint64_t d = 0, e = 0;
    ASSERT_EQ(backend().mem_alloc(device(), big + 64, d, error), CB_OK);
    ASSERT_EQ(backend().mem_alloc(device(), big + 64, e, error), CB_OK);
    std::vector<unsigned char> src(big + 64), dst(big + 64);
    std::iota(src.begin(), src.end(), static_cast<unsigned char>(1));
    struct copy_case {
        std::size_t size, device_offset, host_offset;
    };
    const copy_case cases[] = {{0, 0, 0},    {1, 0, 0},   {1, 3, 5},      {1001, 3, 1},
                               {4096, 1, 7}, {big, 0, 0}, {big - 3, 3, 3}};
    for (const auto& c : cases)
        for (kd_stream* st : {static_cast<kd_stream*>(nullptr), stream}) {
            SCOPED_TRACE(std::to_string(c.size) + " bytes at +" + std::to_string(c.device_offset) +
                         (st != nullptr ? " on a stream" : " synchronous"));
            std::fill(dst.begin(), dst.end(), 0xEE);
            ASSERT_EQ(backend().memset8(device(), d, 0, big + 64, st, error), CB_OK);
            ASSERT_EQ(
                backend().memcpy_h2d(device(), d + c.device_offset, src.data() + c.host_offset, c.size, st, error),
                CB_OK);
            ASSERT_EQ(backend().memcpy_d2d(device(), e + c.device_offset, d + c.device_offset, c.size, st, error),
                      CB_OK);
            ASSERT_EQ(
                backend().memcpy_d2h(device(), dst.data() + c.host_offset, e + c.device_offset, c.size, st, error),
                CB_OK);
            if (st != nullptr) {
                ASSERT_EQ(backend().stream_synchronize(st, error), CB_OK);
            }
            EXPECT_EQ(std::memcmp(dst.data() + c.host_offset, src.data() + c.host_offset, c.size), 0);
            if (c.host_offset > 0) {
                EXPECT_EQ(dst[c.host_offset - 1], 0xEE);  // nothing before
            }
            EXPECT_EQ(dst[c.host_offset + c.size], 0xEE);  // nothing after
        }
    // memset8 at an odd address and length.
    ASSERT_EQ(backend().memset8(device(), d, 0, 1010, nullptr, error), CB_OK);
    ASSERT_EQ(backend().memset8(device(), d + 5, 0xA5, 999, nullptr, error), CB_OK);
    std::vector<unsigned char> back(1010);
    ASSERT_EQ(backend().memcpy_d2h(device(), back.data(), d, back.size(), nullptr, error), CB_OK);
    EXPECT_EQ(back[4], 0);
    EXPECT_EQ(back[5], 0xA5);
    EXPECT_EQ(back[1003], 0xA5);
    EXPECT_EQ(back[1004], 0);
    EXPECT_EQ(backend().mem_free(device(), d, error), CB_OK);
    EXPECT_EQ(backend().mem_free(device(), e, error), CB_OK);
    EXPECT_EQ(backend().stream_destroy(stream, error), CB_OK);
}

TEST_F(RealGpu, AllocateUntilOutOfMemory) {
    std::string error;
    uint64_t free = 0, total = 0;
    ASSERT_EQ(backend().mem_info(device(), free, total, error), CB_OK);
    ASSERT_GT(total, 0u);
    const uint64_t chunk = std::max<uint64_t>(total / 64, uint64_t{256} << 20);
    std::vector<uint64_t> held;
    cb_status last = CB_OK;
    for (int i = 0; i < 4096; ++i) {
        uint64_t p = 0;
        last = backend().mem_alloc(device(), chunk, p, error);
        if (last != CB_OK) break;
        held.push_back(p);
    }
    EXPECT_EQ(last, CB_ERR_OUT_OF_MEMORY) << error;
    EXPECT_NE(error.find("bytes requested"), std::string::npos) << error;
    EXPECT_GE(held.size() * chunk, free / 2) << "out of memory long before the free memory was used";
    for (uint64_t p : held) EXPECT_EQ(backend().mem_free(device(), p, error), CB_OK);
    // Everything came back: a large allocation works again.
    uint64_t p = 0;
    EXPECT_EQ(backend().mem_alloc(device(), chunk, p, error), CB_OK);
    EXPECT_EQ(backend().mem_free(device(), p, error), CB_OK);
}

TEST_F(RealGpu, StreamsAndEvents) {
    std::string error;
    kd_stream* stream = nullptr;
    kd_event *start = nullptr, *end = nullptr;
    ASSERT_EQ(backend().stream_create(device(), stream, error), CB_OK);
    ASSERT_EQ(backend().event_create(device(), start, error), CB_OK);
    ASSERT_EQ(backend().event_create(device(), end, error), CB_OK);
    const std::size_t size = std::size_t{32} << 20;
    uint64_t d = 0;
    ASSERT_EQ(backend().mem_alloc(device(), size, d, error), CB_OK);
    ASSERT_EQ(backend().event_record(start, stream, error), CB_OK);
    for (int i = 0; i < 8; ++i) ASSERT_EQ(backend().memset8(device(), d, uint8_t(i), size, stream, error), CB_OK);
    ASSERT_EQ(backend().event_record(end, stream, error), CB_OK);
    cb_status q = backend().stream_query(stream, error);
    EXPECT_TRUE(q == CB_OK || q == CB_ERR_BUSY) << error;
    ASSERT_EQ(backend().event_synchronize(end, error), CB_OK);
    EXPECT_EQ(backend().event_query(end, error), CB_OK);
    EXPECT_EQ(backend().stream_query(stream, error), CB_OK);
    float ms = -1;
    ASSERT_EQ(backend().event_elapsed_ms(start, end, ms, error), CB_OK);
    EXPECT_GE(ms, 0.0f);
    unsigned char last = 0;
    ASSERT_EQ(backend().memcpy_d2h(device(), &last, d + size - 1, 1, nullptr, error), CB_OK);
    EXPECT_EQ(last, 7);
    EXPECT_EQ(backend().synchronize(device(), error), CB_OK);
    EXPECT_EQ(backend().mem_free(device(), d, error), CB_OK);
    EXPECT_EQ(backend().event_destroy(start, error), CB_OK);
    EXPECT_EQ(backend().event_destroy(end, error), CB_OK);
    EXPECT_EQ(backend().stream_destroy(stream, error), CB_OK);
}

// ABI 1.3: copies from and to pinned memory on two streams, the second ordered after the first by
// stream_wait_event only (created streams do not wait for each other).
TEST_F(RealGpu, PinnedCopiesOrderedAcrossStreamsByAnEvent) {
    std::string error;
    const std::size_t size = std::size_t{16} << 20;
    std::vector<unsigned char> src(size), dst(size, 0);
    for (std::size_t i = 0; i < size; ++i) src[i] = static_cast<unsigned char>(i * 7 + (i >> 12));
    ASSERT_EQ(backend().host_register(device(), src.data(), size, error), CB_OK);
    ASSERT_EQ(backend().host_register(device(), dst.data(), size, error), CB_OK);
    cb_status overlap = backend().host_register(device(), src.data() + 4096, 4096, error);
    EXPECT_EQ(overlap, CB_ERR_INVALID_ARGUMENT) << error;
    kd_stream *a = nullptr, *b = nullptr;
    kd_event* copied = nullptr;
    ASSERT_EQ(backend().stream_create(device(), a, error), CB_OK);
    ASSERT_EQ(backend().stream_create(device(), b, error), CB_OK);
    ASSERT_EQ(backend().event_create(device(), copied, error), CB_OK);
    uint64_t d = 0;
    ASSERT_EQ(backend().mem_alloc(device(), size, d, error), CB_OK);
    ASSERT_EQ(backend().memset8(device(), d, 0, size, nullptr, error), CB_OK);
    ASSERT_EQ(backend().memcpy_h2d(device(), d, src.data(), size, a, error), CB_OK);
    ASSERT_EQ(backend().event_record(copied, a, error), CB_OK);
    ASSERT_EQ(backend().stream_wait_event(device(), b, copied, error), CB_OK);
    ASSERT_EQ(backend().memcpy_d2h(device(), dst.data(), d, size, b, error), CB_OK);
    ASSERT_EQ(backend().stream_synchronize(b, error), CB_OK);
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), size), 0);
    ASSERT_EQ(backend().host_unregister(device(), src.data(), error), CB_OK);
    ASSERT_EQ(backend().host_unregister(device(), dst.data(), error), CB_OK);
    EXPECT_EQ(backend().host_unregister(device(), dst.data(), error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(backend().mem_free(device(), d, error), CB_OK);
    EXPECT_EQ(backend().event_destroy(copied, error), CB_OK);
    EXPECT_EQ(backend().stream_destroy(a, error), CB_OK);
    EXPECT_EQ(backend().stream_destroy(b, error), CB_OK);
}

TEST_F(RealGpu, UserKernelFromCudaSource) {
    std::string error;
    if (gpu().emulated) GTEST_SKIP() << "the emulated driver runs only the built-in kernels";
    const std::string source =
        "extern \"C\" __global__ void axpy(float a, const float* x, float* y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = a * x[i] + y[i];\n"
        "}\n";
    cudabridge::nv::kd_module* module = nullptr;
    std::string log;
    cb_status s =
        backend().module_load(device(), source.data(), source.size(), CB_MODULE_CUDA_SOURCE, module, error, &log);
    ASSERT_EQ(s, CB_OK) << error << "\n" << log;
    const int n = 1000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = float(i);
        y[i] = 1.0f;
    }
    uint64_t dx = 0, dy = 0;
    ASSERT_EQ(backend().mem_alloc(device(), n * sizeof(float), dx, error), CB_OK);
    ASSERT_EQ(backend().mem_alloc(device(), n * sizeof(float), dy, error), CB_OK);
    ASSERT_EQ(backend().memcpy_h2d(device(), dx, x.data(), n * sizeof(float), nullptr, error), CB_OK);
    ASSERT_EQ(backend().memcpy_h2d(device(), dy, y.data(), n * sizeof(float), nullptr, error), CB_OK);
    std::vector<cb_kernel_arg> args = {float_arg(2.0), {}, {}, int_arg(n)};
    args[1].type = args[2].type = CB_ARG_DEVICE_PTR;
    args[1].value.device_ptr = dx;
    args[2].value.device_ptr = dy;
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = "axpy";
    l.grid[0] = (n + 255) / 256;
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = 256;
    l.block[1] = l.block[2] = 1;
    l.args = args.data();
    l.arg_count = args.size();
    s = backend().launch_kernel(module, l, nullptr, error);
    ASSERT_EQ(s, CB_OK) << error;
    ASSERT_EQ(backend().memcpy_d2h(device(), y.data(), dy, n * sizeof(float), nullptr, error), CB_OK);
    for (int i = 0; i < n; i += 97) EXPECT_FLOAT_EQ(y[i], 2.0f * float(i) + 1.0f) << i;
    EXPECT_EQ(backend().module_unload(module, error), CB_OK);

    const std::string broken = "extern \"C\" __global__ void k(float* p) { p[0] = missing_symbol; }\n";
    s = backend().module_load(device(), broken.data(), broken.size(), CB_MODULE_CUDA_SOURCE, module, error, &log);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(log.find("missing_symbol"), std::string::npos) << log;
    EXPECT_EQ(backend().mem_free(device(), dx, error), CB_OK);
    EXPECT_EQ(backend().mem_free(device(), dy, error), CB_OK);
}

TEST_F(RealGpu, TelemetryHeartbeatAndReset) {
    std::string error;
    uint64_t counter = 0;
    cb_status s = backend().heartbeat(device(), counter, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_GT(counter, 0u);
    cb_gpu_telemetry t{};
    s = backend().telemetry(device(), t, error);
    if (gpu().emulated || !backend().nvml().available()) {
        EXPECT_EQ(s, CB_ERR_UNSUPPORTED);  // no NVML: said so, no crash
    } else {
        ASSERT_EQ(s, CB_OK) << error;
        EXPECT_EQ(t.is_simulated, 0);
        EXPECT_GT(t.memory_total, 0u);
        EXPECT_GT(t.temperature_c, 0.0);
        cudabridge::nv::kd_telemetry_details d;
        ASSERT_EQ(backend().telemetry_details(device(), d, error), CB_OK);
        cb_gpu_setting_limits lim{};
        ASSERT_EQ(backend().setting_limits(device(), lim, error), CB_OK);
        std::printf(
            "telemetry: %.0f C, %.1f W of %.0f W (range %.0f..%.0f), SM %u MHz (max %u), PCIe gen %u x%u "
            "(max gen %u x%u), P%d, energy %llu mJ\n",
            t.temperature_c, t.power_w, t.power_limit_w, lim.min_power_w, lim.max_power_w, t.sm_clock_mhz,
            d.max_sm_clock_mhz, t.pcie_link_gen, t.pcie_link_width, d.pcie_max_link_gen, d.pcie_max_link_width,
            t.performance_state, static_cast<unsigned long long>(d.energy_mj));
        // Out of the driver's own range: refused before NVML is asked.
        cb_gpu_settings req{};
        req.struct_size = sizeof req;
        req.fields = CB_SET_POWER_LIMIT;
        req.power_limit_w = lim.max_power_w + 1000;
        if (lim.max_power_w > 0) {
            EXPECT_EQ(backend().apply_settings(device(), req, error), CB_ERR_INVALID_ARGUMENT);
        }
    }
    s = backend().reset(device(), CB_RESET_SOFT, error);
    EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("nvidia-smi -r"), std::string::npos) << error;
}

TEST_F(RealGpu, BadOperandsAreRefusedBeforeTheyReachTheGpu) {
    std::string error;
    if (!kernel_driver_backend::has_builtin_kernels()) GTEST_SKIP() << "no built-in GPU kernels in this build";
    uint64_t d = 0;
    ASSERT_EQ(backend().mem_alloc(device(), 64, d, error), CB_OK);
    auto fill = [&](uint64_t ptr, int64_t n) {
        cb_tensor_desc t{};
        t.device_ptr = ptr;
        t.dtype = CB_DTYPE_FLOAT32;
        t.ndim = 1;
        t.shape[0] = n;
        t.strides[0] = 1;
        cb_kernel_arg args[2] = {{}, float_arg(2.5)};
        args[0].type = CB_ARG_BYTES;
        args[0].size = sizeof t;
        args[0].value.bytes = &t;
        cb_kernel_launch l{};
        l.struct_size = sizeof l;
        l.name = "fill";
        l.dtype = CB_DTYPE_FLOAT32;
        l.args = args;
        l.arg_count = 2;
        return backend().launch_builtin(device(), l, nullptr, error);
    };
    cb_status s = fill(d, 32);  // 128 bytes in a 64-byte allocation
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("not inside one device allocation"), std::string::npos) << error;
    s = fill(d + 2, 4);  // a float at an odd address would fault on the GPU
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("not aligned"), std::string::npos) << error;
    // The context is still healthy.
    ASSERT_EQ(fill(d, 16), CB_OK) << error;
    float back[16] = {};
    ASSERT_EQ(backend().memcpy_d2h(device(), back, d, sizeof back, nullptr, error), CB_OK);
    EXPECT_FLOAT_EQ(back[15], 2.5f);
    uint64_t counter = 0;
    EXPECT_EQ(backend().heartbeat(device(), counter, error), CB_OK);
    EXPECT_EQ(backend().mem_free(device(), d, error), CB_OK);
}

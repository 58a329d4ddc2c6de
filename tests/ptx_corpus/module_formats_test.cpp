// Every module format the simulated eGPU takes, through the runtime API as a CUDA program uses
// it: a fatbin as nvcc packs it, CUDA source compiled by NVRTC (where this machine has NVRTC),
// a CUBIN refused with how to build with PTX; and the modeled time a PTX kernel takes.
#include "corpus_fixture.hpp"

#include <chrono>
#include <cmath>

namespace cudabridge::test {
namespace {

class module_formats : public ptx_corpus {
protected:
    // saxpy on n elements of `m`; true when every element is fma(a, x, y).
    void expect_saxpy_runs(cbModule_t m, size_t n = 4099) {
        const float a = -1.5f;
        std::vector<float> x(n), y(n);
        for (size_t i = 0; i < n; ++i) x[i] = spread(i, -4.0f, 4.0f), y[i] = spread(i + 7, -4.0f, 4.0f);
        void* dx = upload(x);
        void* dy = upload(y);
        ASSERT_EQ(run(m, "saxpy", {blocks_for(n, 128), 1, 1}, {128, 1, 1},
                      {cbArgInt(static_cast<int64_t>(n)), cbArgDouble(a), cbArgPointer(dx), cbArgPointer(dy)}),
                  cbSuccess)
            << cbGetLastErrorMessage();
        const auto out = download<float>(dy, n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], std::fma(a, x[i], y[i])) << i;
    }

    cbError_t load_as(const std::string& file, cb_module_format format, cbModule_t& m) {
        const std::string bytes = ptx_text(file);
        return rt->module_load(&m, bytes.data(), bytes.size(), format);
    }
};

TEST_F(module_formats, AFatbinRunsItsPtxWhicheverWayNvccCompressedIt) {
    for (const std::string file : {"../fatbins/saxpy_zstd.fatbin", "../fatbins/saxpy_lz4.fatbin",
                                   "../fatbins/saxpy_plain.fatbin", "../fatbins/saxpy_two_ptx.fatbin"}) {
        SCOPED_TRACE(file);
        cbModule_t m = nullptr;
        ASSERT_EQ(load_as(file, CB_MODULE_FATBIN, m), cbSuccess) << cbGetLastErrorMessage();
        expect_saxpy_runs(m);
        EXPECT_EQ(rt->module_unload(m), cbSuccess);
    }
}

TEST_F(module_formats, AFatbinWithMachineCodeOnlyIsRefusedSayingHowToBuildWithPtx) {
    cbModule_t m = nullptr;
    EXPECT_NE(load_as("../fatbins/saxpy_sass_only.fatbin", CB_MODULE_FATBIN, m), cbSuccess);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("code=compute_"), std::string::npos) << cbGetLastErrorMessage();
}

TEST_F(module_formats, ACubinIsRefusedSayingHowToBuildWithPtx) {
    const char cubin[] =
        "\x7f"
        "ELF\x02\x01\x01";
    cbModule_t m = nullptr;
    EXPECT_EQ(rt->module_load(&m, cubin, sizeof cubin, CB_MODULE_CUBIN), cbErrorNotSupported);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("code=compute_"), std::string::npos) << cbGetLastErrorMessage();
}

TEST_F(module_formats, CudaSourceCompilesThroughNvrtcOrSaysThereIsNone) {
    cbModule_t m = nullptr;
    const cbError_t e = load_as("saxpy.cu", CB_MODULE_CUDA_SOURCE, m);
    if (e != cbSuccess) {
        const std::string message = cbGetLastErrorMessage();
        ASSERT_NE(message.find("no NVRTC on this machine"), std::string::npos) << message;
        GTEST_SKIP() << message;
    }
    expect_saxpy_runs(m);
    const std::string broken = "__global__ void k(int* p) { p[0] = undeclared; }";
    cbModule_t bad = nullptr;
    EXPECT_EQ(rt->module_load(&bad, broken.data(), broken.size(), CB_MODULE_CUDA_SOURCE), cbErrorInvalidKernelImage);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("undeclared"), std::string::npos) << cbGetLastErrorMessage();
}

// CUDA's own device headers are on NVRTC's include path, as nvcc finds them.
TEST_F(module_formats, CudaSourceMayIncludeCudasHeaders) {
    const std::string source =
        "#include <cuda_fp16.h>\n"
        "extern \"C\" __global__ void twice(__half2* p) { p[0] = __hadd2(p[0], p[0]); }\n";
    cbModule_t m = nullptr;
    const cbError_t e = rt->module_load(&m, source.data(), source.size(), CB_MODULE_CUDA_SOURCE);
    if (e != cbSuccess) {
        const std::string message = cbGetLastErrorMessage();
        ASSERT_NE(message.find("no NVRTC on this machine"), std::string::npos) << message;
        GTEST_SKIP() << message;
    }
    EXPECT_EQ(rt->module_unload(m), cbSuccess);
}

TEST_F(module_formats, AWrongArgumentFailsTheLaunchNamingTheParameter) {
    cbModule_t m = nullptr;
    ASSERT_EQ(load_as("saxpy.ptx", CB_MODULE_PTX, m), cbSuccess) << cbGetLastErrorMessage();
    void* d = device_alloc(64);
    const std::vector<cbKernelArg> float_for_pointer = {cbArgInt(4), cbArgDouble(1.0), cbArgDouble(2.0),
                                                        cbArgPointer(d)};
    EXPECT_EQ(rt->launch_kernel(m, "saxpy", {1, 1, 1}, {32, 1, 1}, float_for_pointer.data(), float_for_pointer.size(),
                                0, nullptr),
              cbErrorInvalidValue);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("parameter 2"), std::string::npos) << cbGetLastErrorMessage();
    const std::vector<cbKernelArg> too_few = {cbArgInt(4), cbArgDouble(1.0)};
    EXPECT_EQ(rt->launch_kernel(m, "saxpy", {1, 1, 1}, {32, 1, 1}, too_few.data(), too_few.size(), 0, nullptr),
              cbErrorInvalidValue);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("2 arguments for 4 parameters"), std::string::npos)
        << cbGetLastErrorMessage();
    // A refused launch is not sticky: the device still runs the kernel.
    expect_saxpy_runs(m, 100);
}

TEST_F(module_formats, KernelParamsAreLaidOutByTheKernelsOwnParameterList) {
    // What nvcc's launch code hands the runtime: one pointer per parameter, each to a value of
    // the parameter's own size (int n, float a, two pointers), and no count.
    cbModule_t m = nullptr;
    ASSERT_EQ(load_as("saxpy.ptx", CB_MODULE_PTX, m), cbSuccess) << cbGetLastErrorMessage();
    const size_t count = 1000;
    std::vector<float> x(count), y(count);
    for (size_t i = 0; i < count; ++i) x[i] = spread(i, -2.0f, 2.0f), y[i] = spread(i + 3, -2.0f, 2.0f);
    void* dx = upload(x);
    void* dy = upload(y);
    int n = static_cast<int>(count);
    float a = 0.75f;
    void* params[] = {&n, &a, &dx, &dy};
    ASSERT_EQ(rt->launch_kernel_params(m, "saxpy", {blocks_for(count, 128), 1, 1}, {128, 1, 1}, params, 0, nullptr),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto out = download<float>(dy, count);
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(out[i], std::fma(a, x[i], y[i])) << i;

    void* missing[] = {&n, &a, nullptr, &dy};
    EXPECT_EQ(rt->launch_kernel_params(m, "saxpy", {1, 1, 1}, {32, 1, 1}, missing, 0, nullptr), cbErrorInvalidValue);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("parameter 2"), std::string::npos) << cbGetLastErrorMessage();
}

TEST_F(module_formats, RunningOffTheEndOfAnAllocationIntoUnmappedPagesIsAnIllegalAddress) {
    // y holds 256 floats, but the launch says n = 1M: the stores run 4 MiB past y's allocation,
    // into 64 KiB pages no allocation holds (a GPU's page tables leave them unmapped too).
    const size_t n = 1u << 20;
    cbModule_t m = nullptr;
    ASSERT_EQ(load_as("saxpy.ptx", CB_MODULE_PTX, m), cbSuccess) << cbGetLastErrorMessage();
    void* dx = device_alloc(n * 4);
    void* dy = device_alloc(256 * 4);
    const std::vector<cbKernelArg> args = {cbArgInt(static_cast<int64_t>(n)), cbArgDouble(1.0), cbArgPointer(dx),
                                           cbArgPointer(dy)};
    const cbError_t launched = rt->launch_kernel(m, "saxpy", {static_cast<unsigned>(n / 256), 1, 1}, {256, 1, 1},
                                                 args.data(), args.size(), 0, nullptr);
    EXPECT_TRUE(launched == cbSuccess || launched == cbErrorIllegalAddress) << launched;
    EXPECT_EQ(rt->synchronize(), cbErrorIllegalAddress) << cbGetLastErrorMessage();
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("saxpy"), std::string::npos) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->reset_device(), cbSuccess) << cbGetLastErrorMessage();
}

TEST_F(module_formats, AKernelsModeledTimeIsWithinWhatTheGpuCouldDo) {
    // saxpy on 4M floats moves 48 MiB (x read, y read and written). On the simulated RTX 5090
    // (1792 GB/s) that is at least 28 us, plus the launch latency; far less than a second.
    // Between the events the device clock also follows the wall clock while the GPU idles, as a
    // real GPU's does (the host's own gaps, longer on a busy machine): those are bounded by the
    // wall time of the whole sequence, so the upper bound allows them and nothing more.
    const auto wall_start = std::chrono::steady_clock::now();
    const size_t n = 4u << 20;
    cbModule_t m = nullptr;
    ASSERT_EQ(load_as("saxpy.ptx", CB_MODULE_PTX, m), cbSuccess) << cbGetLastErrorMessage();
    void* dx = device_alloc(n * 4);
    void* dy = device_alloc(n * 4);
    cbEvent_t start = nullptr, end = nullptr;
    ASSERT_EQ(rt->event_create(&start), cbSuccess);
    ASSERT_EQ(rt->event_create(&end), cbSuccess);
    ASSERT_EQ(rt->event_record(start, nullptr), cbSuccess);
    const std::vector<cbKernelArg> args = {cbArgInt(static_cast<int64_t>(n)), cbArgDouble(2.0), cbArgPointer(dx),
                                           cbArgPointer(dy)};
    ASSERT_EQ(rt->launch_kernel(m, "saxpy", {static_cast<unsigned>(n / 256), 1, 1}, {256, 1, 1}, args.data(),
                                args.size(), 0, nullptr),
              cbSuccess)
        << cbGetLastErrorMessage();
    ASSERT_EQ(rt->event_record(end, nullptr), cbSuccess);
    ASSERT_EQ(rt->synchronize(), cbSuccess) << cbGetLastErrorMessage();
    const double wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
    float ms = 0;
    ASSERT_EQ(rt->event_elapsed(&ms, start, end), cbSuccess) << cbGetLastErrorMessage();
    const double bytes = 3.0 * 4.0 * static_cast<double>(n);
    const double floor_ms = bytes / 1792e9 * 1e3;  // the profile's memory bandwidth
    EXPECT_GE(ms, floor_ms) << "faster than the memory could move the data";
    EXPECT_LT(ms, floor_ms * 4 + 0.1 + wall_ms)
        << "far slower than the roofline allows (host gaps: " << wall_ms << " ms of wall time)";
}

}  // namespace
}  // namespace cudabridge::test

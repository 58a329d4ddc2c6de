// Fake libcuda libraries exporting chosen symbols and codes: no device, a missing _v2 symbol,
// and a "working" driver that exercises the success path and the same-ABI fallback.
#include <gtest/gtest.h>

#include "nvidia_driver/cuda_driver/cuda_driver.hpp"

using namespace cudabridge::nv;

TEST(CudaDriverFake, InitNoDevice) {
    cuda_driver drv(CB_TEST_FAKE_CUDA_NODEVICE);
    EXPECT_FALSE(drv.available());
    EXPECT_EQ(drv.init_result(), 100);
    EXPECT_EQ(drv.status().status, CB_ERR_NO_DEVICE);
    EXPECT_EQ(drv.status().reason, "no CUDA device (CUDA_ERROR_NO_DEVICE, 100)");
}

TEST(CudaDriverFake, MissingVersionedSymbolIsNamedAndLegacyIsNotUsed) {
    cuda_driver drv(CB_TEST_FAKE_CUDA_PARTIAL);  // exports cuMemAlloc, not cuMemAlloc_v2
    EXPECT_FALSE(drv.available());
    EXPECT_EQ(drv.status().status, CB_ERR_UNSUPPORTED);
    EXPECT_NE(drv.status().reason.find("missing symbol cuMemAlloc_v2"), std::string::npos) << drv.status().reason;
    EXPECT_EQ(drv.api().cuMemAlloc, nullptr);
    EXPECT_EQ(drv.bound_name("cuMemAlloc"), "");
    EXPECT_EQ(drv.init_result(), -1);  // cuInit not called on an incomplete library
}

TEST(CudaDriverFake, WorkingDriver) {
    cuda_driver drv(CB_TEST_FAKE_CUDA_OK);
    ASSERT_TRUE(drv.available()) << drv.status().reason;
    EXPECT_EQ(drv.status().status, CB_OK);
    EXPECT_TRUE(drv.status().reason.empty());
    EXPECT_EQ(drv.status().driver_version, 13000);
    EXPECT_EQ(drv.status().device_count, 2);

    // The _v2 function is called: the legacy fake answers 999 with 0xBAD.
    cudabridge::nv::cu::CUdeviceptr p = 0;
    EXPECT_EQ(drv.api().cuMemAlloc(&p, 1024), 0);
    EXPECT_EQ(p, 0xD000u);
    std::size_t total = 0;
    EXPECT_EQ(drv.api().cuDeviceTotalMem(&total, 0), 0);
    EXPECT_EQ(total, std::size_t{1} << 34);

    // OOM through the library's own error names.
    EXPECT_EQ(drv.api().cuMemAlloc(&p, std::size_t{1} << 40), 2);
    std::string msg;
    EXPECT_EQ(drv.check(2, "cuMemAlloc_v2", &msg), CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(msg, "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
    // A code the library cannot name falls back to the built-in table.
    EXPECT_EQ(drv.describe(101), "CUDA_ERROR_INVALID_DEVICE (101)");

    // cuEventElapsedTime_v2 is absent: the same-ABI pre-13 export is used.
    EXPECT_EQ(drv.bound_name("cuEventElapsedTime"), "cuEventElapsedTime");
    float ms = 0;
    EXPECT_EQ(drv.api().cuEventElapsedTime(&ms, nullptr, nullptr), 0);
    EXPECT_FLOAT_EQ(ms, 1.5f);
    EXPECT_EQ(drv.bound_name("cuDeviceGetUuid"), "cuDeviceGetUuid_v2");

    // ABI 1.3's optional entry points bind by their versioned names when exported.
    EXPECT_EQ(drv.bound_name("cuMemHostRegister"), "cuMemHostRegister_v2");
    EXPECT_EQ(drv.bound_name("cuMemHostUnregister"), "cuMemHostUnregister");
    EXPECT_EQ(drv.bound_name("cuStreamWaitEvent"), "cuStreamWaitEvent");
    EXPECT_EQ(drv.describe(712), "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED (712)");
    EXPECT_EQ(drv.check(713, "cuMemHostUnregister"), CB_ERR_INVALID_ARGUMENT);
}

TEST(CudaDriverFake, OptionalEntryPointsMayBeMissing) {
    cuda_driver drv(CB_TEST_FAKE_CUDA_NODEVICE);  // same exports; only cuInit differs
    EXPECT_NE(drv.api().cuStreamWaitEvent, nullptr);
    cuda_driver partial(CB_TEST_FAKE_CUDA_PARTIAL);
    EXPECT_EQ(partial.bound_name("cuMemAllocAsync"), "");  // never exported by the fake
    EXPECT_EQ(partial.api().cuMemAllocAsync, nullptr);
    // ABI 1.9's managed and mapped memory: bound where exported, null where not.
    EXPECT_EQ(drv.bound_name("cuMemAllocManaged"), "cuMemAllocManaged");
    EXPECT_EQ(drv.bound_name("cuMemHostGetDevicePointer"), "cuMemHostGetDevicePointer_v2");
    EXPECT_EQ(partial.api().cuMemAllocManaged, nullptr);
    EXPECT_EQ(partial.api().cuMemHostGetDevicePointer, nullptr);
}

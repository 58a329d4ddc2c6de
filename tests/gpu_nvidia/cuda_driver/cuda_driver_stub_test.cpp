// The CUDA toolkit's stub libcuda: every versioned symbol resolves, cuInit says STUB_LIBRARY.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "nvidia_driver/cuda_driver/cuda_driver.hpp"

using namespace cudabridge::nv;

#ifdef CB_TEST_CUDA_STUB
constexpr const char* stub_path = CB_TEST_CUDA_STUB;
#else
constexpr const char* stub_path = nullptr;
#endif

TEST(CudaDriverStub, ReportsStubLibrary) {
    if (stub_path == nullptr) GTEST_SKIP() << "no CUDA toolkit stub libcuda.so at build time";
    cuda_driver drv(stub_path);
    EXPECT_FALSE(drv.available());
    EXPECT_EQ(drv.init_result(), 34);
    EXPECT_EQ(drv.status().status, CB_ERR_NO_DEVICE);
    EXPECT_NE(drv.status().reason.find("libcuda is the toolkit's stub (CUDA_ERROR_STUB_LIBRARY, 34): no driver"),
              std::string::npos)
        << drv.status().reason;
}

TEST(CudaDriverStub, BindsVersionedSymbolsNotLegacyOnes) {
    if (stub_path == nullptr) GTEST_SKIP() << "no CUDA toolkit stub libcuda.so at build time";
    cuda_driver drv(stub_path);
    for (const auto& b : drv.bound_symbols()) EXPECT_FALSE(b.bound.empty()) << b.api << " unresolved";
    EXPECT_EQ(drv.bound_name("cuMemAlloc"), "cuMemAlloc_v2");
    EXPECT_EQ(drv.bound_name("cuMemFree"), "cuMemFree_v2");
    EXPECT_EQ(drv.bound_name("cuMemcpyHtoD"), "cuMemcpyHtoD_v2");
    EXPECT_EQ(drv.bound_name("cuMemcpyDtoH"), "cuMemcpyDtoH_v2");
    EXPECT_EQ(drv.bound_name("cuMemcpyDtoD"), "cuMemcpyDtoD_v2");
    EXPECT_EQ(drv.bound_name("cuMemsetD8"), "cuMemsetD8_v2");
    EXPECT_EQ(drv.bound_name("cuMemGetInfo"), "cuMemGetInfo_v2");
    EXPECT_EQ(drv.bound_name("cuDeviceTotalMem"), "cuDeviceTotalMem_v2");
    EXPECT_EQ(drv.bound_name("cuDevicePrimaryCtxRelease"), "cuDevicePrimaryCtxRelease_v2");
    EXPECT_EQ(drv.bound_name("cuStreamDestroy"), "cuStreamDestroy_v2");
    EXPECT_EQ(drv.bound_name("cuEventDestroy"), "cuEventDestroy_v2");
    EXPECT_EQ(drv.bound_name("cuDeviceGetUuid"), "cuDeviceGetUuid_v2");
    EXPECT_EQ(drv.bound_name("cuEventElapsedTime"), "cuEventElapsedTime_v2");  // CUDA 13 stub

    // The pointers are the _v2 exports, not the legacy ones the stub also exports.
    void* h = ::dlopen(stub_path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(reinterpret_cast<void*>(drv.api().cuMemAlloc), ::dlsym(h, "cuMemAlloc_v2"));
    void* legacy = ::dlsym(h, "cuMemAlloc");
    if (legacy != nullptr) {
        EXPECT_NE(reinterpret_cast<void*>(drv.api().cuMemAlloc), legacy);
    }
    ::dlclose(h);
}

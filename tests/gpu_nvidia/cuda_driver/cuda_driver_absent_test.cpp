// No driver: a missing library is "not available" with a reason, never a crash.
#include <gtest/gtest.h>

#include "nvidia_driver/cuda_driver/cuda_driver.hpp"

using namespace cudabridge::nv;

TEST(CudaDriverAbsent, NonexistentPathNamesTheFile) {
    cuda_driver drv("/nonexistent/dir/libcuda-missing.so.1");
    EXPECT_FALSE(drv.available());
    EXPECT_EQ(drv.status().status, CB_ERR_NO_DEVICE);
    EXPECT_NE(drv.status().reason.find("/nonexistent/dir/libcuda-missing.so.1"), std::string::npos)
        << drv.status().reason;
    EXPECT_NE(drv.status().reason.find("not found"), std::string::npos);
    EXPECT_EQ(drv.status().device_count, 0);
    EXPECT_EQ(drv.api().cuInit, nullptr);
}

TEST(CudaDriverAbsent, DefaultLibraryOnThisMachine) {
    cuda_driver drv;  // "libcuda.so.1"
    if (drv.available()) GTEST_SKIP() << "a real NVIDIA driver with a GPU is installed here";
    EXPECT_NE(drv.status().status, CB_OK);
    EXPECT_FALSE(drv.status().reason.empty());
    // Whatever is true here: not installed, the stub, or no device.
    const std::string& r = drv.status().reason;
    EXPECT_TRUE(r.find("libcuda.so.1 not found (no NVIDIA driver installed)") != std::string::npos ||
                r.find("CUDA_ERROR_STUB_LIBRARY") != std::string::npos ||
                r.find("CUDA_ERROR_NO_DEVICE") != std::string::npos || r.find("no CUDA device") != std::string::npos)
        << r;
}

TEST(CudaDriverAbsent, DescribeWorksWithoutALibrary) {
    cuda_driver drv("/nonexistent/libcuda.so.1");
    EXPECT_EQ(drv.describe(2), "CUDA_ERROR_OUT_OF_MEMORY (2)");
    std::string msg;
    EXPECT_EQ(drv.check(100, "cuDeviceGet", &msg), CB_ERR_NO_DEVICE);
    EXPECT_EQ(msg, "cuDeviceGet: CUDA_ERROR_NO_DEVICE (100)");
}

// CUresult → cb_status and names, and NVML codes → cb_status.
#include <gtest/gtest.h>

#include "nvidia_driver/cuda_driver/cuda_result.hpp"
#include "nvidia_driver/cuda_driver/nvml_result.hpp"

using namespace cudabridge::nv;

TEST(CudaResult, MapsToStatus) {
    EXPECT_EQ(cuda_to_status(0), CB_OK);
    EXPECT_EQ(cuda_to_status(1), CB_ERR_INVALID_ARGUMENT);  // INVALID_VALUE
    EXPECT_EQ(cuda_to_status(2), CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(cuda_to_status(34), CB_ERR_NO_DEVICE);  // STUB_LIBRARY
    EXPECT_EQ(cuda_to_status(100), CB_ERR_NO_DEVICE);
    EXPECT_EQ(cuda_to_status(101), CB_ERR_INVALID_ARGUMENT);  // INVALID_DEVICE
    EXPECT_EQ(cuda_to_status(209), CB_ERR_UNSUPPORTED);       // NO_BINARY_FOR_GPU
    EXPECT_EQ(cuda_to_status(218), CB_ERR_INVALID_ARGUMENT);  // INVALID_PTX
    EXPECT_EQ(cuda_to_status(500), CB_ERR_NOT_FOUND);
    EXPECT_EQ(cuda_to_status(600), CB_ERR_BUSY);         // NOT_READY
    EXPECT_EQ(cuda_to_status(700), CB_ERR_DEVICE_LOST);  // ILLEGAL_ADDRESS
    EXPECT_EQ(cuda_to_status(719), CB_ERR_DEVICE_LOST);  // LAUNCH_FAILED
    EXPECT_EQ(cuda_to_status(801), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(cuda_to_status(803), CB_ERR_ABI_MISMATCH);
    EXPECT_EQ(cuda_to_status(999), CB_ERR_INTERNAL);
    EXPECT_EQ(cuda_to_status(12345), CB_ERR_INTERNAL);
}

TEST(CudaResult, NamesAndLabels) {
    EXPECT_STREQ(cuda_result_name(34), "CUDA_ERROR_STUB_LIBRARY");
    EXPECT_STREQ(cuda_result_name(100), "CUDA_ERROR_NO_DEVICE");
    EXPECT_EQ(cuda_result_name(35), nullptr);  // no driver-API code 35
    EXPECT_EQ(cuda_result_label(2), "CUDA_ERROR_OUT_OF_MEMORY (2)");
    EXPECT_EQ(cuda_result_label(12345), "CUresult 12345");
}

TEST(NvmlResult, MapsToStatus) {
    EXPECT_EQ(nvml_to_status(0), CB_OK);
    EXPECT_EQ(nvml_to_status(2), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(nvml_to_status(3), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(nvml_to_status(4), CB_ERR_PERMISSION);
    EXPECT_EQ(nvml_to_status(9), CB_ERR_NO_DEVICE);  // DRIVER_NOT_LOADED
    EXPECT_EQ(nvml_to_status(15), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(nvml_to_status(20), CB_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(nvml_to_status(999), CB_ERR_INTERNAL);
    EXPECT_EQ(nvml_result_label(4), "NVML_ERROR_NO_PERMISSION (4)");
}

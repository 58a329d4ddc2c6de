// The NVML loader: absent, stub, no kernel driver, and a fake NVML with a non-root user.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "nvidia_driver/cuda_driver/nvml_library.hpp"

using namespace cudabridge::nv;

TEST(NvmlLibrary, AbsentLibrary) {
    nvml_library nvml("/nonexistent/libnvidia-ml.so.1");
    EXPECT_FALSE(nvml.available());
    EXPECT_EQ(nvml.status().status, CB_ERR_NO_DEVICE);
    EXPECT_NE(nvml.status().reason.find("/nonexistent/libnvidia-ml.so.1 not found"), std::string::npos)
        << nvml.status().reason;
    nvml::nvmlDevice_t dev = nullptr;
    std::string msg;
    EXPECT_NE(nvml.device(0, dev, &msg), CB_OK);
    EXPECT_NE(msg.find("NVML not available"), std::string::npos);
}

TEST(NvmlLibrary, DefaultLibraryOnThisMachine) {
    nvml_library nvml;
    if (nvml.available()) GTEST_SKIP() << "a real NVML with a GPU is installed here";
    EXPECT_FALSE(nvml.status().reason.empty());
    EXPECT_NE(nvml.status().status, CB_OK);
}

TEST(NvmlLibrary, ToolkitStub) {
#ifdef CB_TEST_NVML_STUB
    nvml_library nvml(CB_TEST_NVML_STUB);
    EXPECT_FALSE(nvml.available());  // the stub has no driver behind it
    EXPECT_FALSE(nvml.status().reason.empty());
    EXPECT_EQ(nvml.bound_name("nvmlInit"), "nvmlInit_v2");
#else
    GTEST_SKIP() << "no libnvidia-ml.so stub in the CUDA toolkit here";
#endif
}

TEST(NvmlLibrary, KernelDriverNotLoaded) {
    nvml_library nvml(CB_TEST_FAKE_NVML_NODRIVER);
    EXPECT_FALSE(nvml.available());
    EXPECT_EQ(nvml.status().status, CB_ERR_NO_DEVICE);
    EXPECT_EQ(nvml.status().reason, "NVIDIA kernel driver not loaded (NVML_ERROR_DRIVER_NOT_LOADED, 9)");
}

TEST(NvmlLibrary, VersionedSymbolsAndFallbacks) {
    nvml_library nvml(CB_TEST_FAKE_NVML_OK);
    ASSERT_TRUE(nvml.available()) << nvml.status().reason;
    EXPECT_EQ(nvml.status().device_count, 1);
    EXPECT_EQ(nvml.bound_name("nvmlInit"), "nvmlInit_v2");
    EXPECT_EQ(nvml.bound_name("nvmlDeviceGetCount"), "nvmlDeviceGetCount_v2");
    EXPECT_EQ(nvml.bound_name("nvmlDeviceGetHandleByIndex"), "nvmlDeviceGetHandleByIndex_v2");
    EXPECT_EQ(nvml.bound_name("nvmlDeviceGetCurrentClocksEventReasons"), "nvmlDeviceGetCurrentClocksThrottleReasons");
    EXPECT_EQ(nvml.api().nvmlDeviceResetGpuLockedClocks, nullptr);  // optional, absent
}

TEST(NvmlLibrary, NoPermissionNeedsRoot) {
    nvml_library nvml(CB_TEST_FAKE_NVML_OK);
    ASSERT_TRUE(nvml.available()) << nvml.status().reason;
    std::string msg;
    EXPECT_EQ(nvml.set_power_limit_mw(0, 200000, &msg), CB_ERR_PERMISSION);
    EXPECT_EQ(msg,
              "needs root (run with sudo) to change the power limit: NVML_ERROR_NO_PERMISSION (4): "
              "Insufficient Permissions");
}

TEST(NvmlLibrary, LockedClocks) {
    nvml_library nvml(CB_TEST_FAKE_NVML_OK);
    ASSERT_TRUE(nvml.available());
    std::string msg;
    EXPECT_EQ(nvml.set_locked_clocks(0, 1000, 1800, &msg), CB_OK) << msg;
    EXPECT_EQ(nvml.set_locked_clocks(0, 1800, 1000, &msg), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(nvml.set_locked_clocks(0, 0, 0, &msg), CB_ERR_UNSUPPORTED);  // reset not exported
    EXPECT_NE(msg.find("nvmlDeviceResetGpuLockedClocks"), std::string::npos);
    EXPECT_EQ(nvml.set_locked_clocks(3, 1000, 1800, &msg), CB_ERR_NOT_FOUND);
}

TEST(NvmlLibrary, ShutdownOnDestruction) {
    void* h = ::dlopen(CB_TEST_FAKE_NVML_OK, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr);
    auto count = reinterpret_cast<int (*)()>(::dlsym(h, "fake_nvml_init_count"));
    ASSERT_NE(count, nullptr);
    int before = count();
    {
        nvml_library nvml(CB_TEST_FAKE_NVML_OK);
        ASSERT_TRUE(nvml.available());
        EXPECT_EQ(count(), before + 1);
    }
    EXPECT_EQ(count(), before);
    ::dlclose(h);
}

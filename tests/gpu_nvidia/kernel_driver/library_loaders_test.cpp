// The cuBLAS and NVRTC loaders: missing libraries give a reason, present ones bind the _v2 /
// documented exports, and NVRTC (a pure compiler, no GPU needed) picks the architecture and
// compiles. The present-library cases skip where the toolkit is not installed.
#include <gtest/gtest.h>

#include <cstring>

#include "nvidia_driver/cuda_driver/cublas_library.hpp"
#include "nvidia_driver/cuda_driver/nvrtc_library.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

using namespace cudabridge::nv;

TEST(CublasLoader, MissingLibraryHasAReason) {
    cublas_library lib({"/nonexistent/a/libcublas.so.13", "/nonexistent/b/libcublas.so"});
    EXPECT_FALSE(lib.available());
    EXPECT_EQ(lib.status().status, CB_ERR_NOT_FOUND);
    EXPECT_NE(lib.status().reason.find("/nonexistent/a/libcublas.so.13"), std::string::npos) << lib.status().reason;
    EXPECT_NE(lib.status().reason.find("/nonexistent/b/libcublas.so"), std::string::npos) << lib.status().reason;
    EXPECT_EQ(lib.api().cublasSgemm, nullptr);
    EXPECT_FALSE(cublas_library(std::vector<std::string>{}).available());
}

TEST(CublasLoader, BindsTheV2Exports) {
    cublas_library lib(kernel_driver_options::default_cublas_libraries());
    if (!lib.available()) GTEST_SKIP() << "no cuBLAS here: " << lib.status().reason;
    EXPECT_EQ(lib.bound_name("cublasCreate"), "cublasCreate_v2");
    EXPECT_EQ(lib.bound_name("cublasSgemm"), "cublasSgemm_v2");
    EXPECT_EQ(lib.bound_name("cublasDgemm"), "cublasDgemm_v2");
    EXPECT_EQ(lib.bound_name("cublasSetStream"), "cublasSetStream_v2");
    std::string message;
    EXPECT_EQ(lib.check(7, "cublasSgemm_v2", &message), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(message.rfind("cublasSgemm_v2: CUBLAS_STATUS_INVALID_VALUE (7)", 0), 0u) << message;
}

TEST(NvrtcLoader, MissingLibraryHasAReason) {
    nvrtc_library lib({"/nonexistent/libnvrtc.so.13"});
    EXPECT_FALSE(lib.available());
    nvrtc_output out;
    std::string message;
    EXPECT_EQ(lib.compile("int x;", "x.cu", 8, 9, out, &message), CB_ERR_NOT_FOUND);
    EXPECT_NE(message.find("NVRTC not available"), std::string::npos) << message;
}

TEST(NvrtcLoader, ArchitectureAndCompile) {
    nvrtc_library lib(kernel_driver_options::default_nvrtc_libraries());
    if (!lib.available()) GTEST_SKIP() << "no NVRTC here: " << lib.status().reason;
    EXPECT_GE(lib.version(), 11000);
    ASSERT_FALSE(lib.supported_architectures().empty());
    const int newest = lib.supported_architectures().back();
    EXPECT_EQ(lib.architecture_for(newest / 10, newest % 10), "sm_" + std::to_string(newest));
    // A GPU newer than this NVRTC: PTX for the newest architecture it knows, JIT-compiled on load.
    EXPECT_EQ(lib.architecture_for(99, 0), "compute_" + std::to_string(newest));
    EXPECT_EQ(lib.architecture_for(1, 0), "");

    const std::string src = "extern \"C\" __global__ void twice(int* x) { x[threadIdx.x] *= 2; }\n";
    nvrtc_output out;
    std::string message;
    ASSERT_EQ(lib.compile(src, "twice.cu", newest / 10, newest % 10, out, &message), CB_OK) << message << out.log;
    EXPECT_TRUE(out.is_cubin);
    ASSERT_GE(out.image.size(), 4u);
    EXPECT_EQ(std::memcmp(out.image.data(),
                          "\x7f"
                          "ELF",
                          4),
              0);

    ASSERT_EQ(lib.compile(src, "twice.cu", 99, 0, out, &message), CB_OK) << message << out.log;
    EXPECT_FALSE(out.is_cubin);
    EXPECT_NE(out.image.find(".entry twice"), std::string::npos);

    EXPECT_EQ(lib.compile("this is not C++", "bad.cu", newest / 10, newest % 10, out, &message),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(message.find("failed to compile"), std::string::npos) << message;
    EXPECT_NE(out.log.find("bad.cu"), std::string::npos) << out.log;
    EXPECT_EQ(lib.compile(src, "old.cu", 1, 0, out, &message), CB_ERR_UNSUPPORTED);
}

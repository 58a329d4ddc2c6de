// The PTX a module image holds, by format: PTX text as given, a fatbin's PTX entry, CUDA source
// through NVRTC (when this machine has it), and a CUBIN refused with how to build with PTX.
#include "sim/modules/module_source.hpp"

#include "nvidia_driver/cuda_driver/nvrtc_library.hpp"
#include "corpus_files.hpp"

#include <gtest/gtest.h>

namespace cudabridge::nv::test {
namespace {

TEST(ModuleSource, PtxTextLosesItsTrailingNulsAndMayHoldNoOther) {
    const std::string text = ".version 9.0\n.target sm_75\n";
    module_text out;
    std::string error;
    const std::string terminated = text + std::string(3, '\0');
    ASSERT_EQ(module_ptx(terminated.data(), terminated.size(), CB_MODULE_PTX, 12, 0, out, error), CB_OK) << error;
    EXPECT_EQ(out.ptx, text);
    const std::string inner = ".version 9.0\n" + std::string(1, '\0') + ".target sm_75\n";
    EXPECT_EQ(module_ptx(inner.data(), inner.size(), CB_MODULE_PTX, 12, 0, out, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("NUL"), std::string::npos) << error;
}

TEST(ModuleSource, AFatbinGivesItsNewestPtx) {
    const std::string image = corpus_file("fatbins/saxpy_zstd.fatbin");
    module_text out;
    std::string error;
    ASSERT_EQ(module_ptx(image.data(), image.size(), CB_MODULE_FATBIN, 12, 0, out, error), CB_OK) << error;
    EXPECT_EQ(code_lines(out.ptx), code_lines(corpus_file("kernels/saxpy.ptx")));
}

TEST(ModuleSource, ACubinIsRefusedSayingHowToBuildWithPtx) {
    const char cubin[] =
        "\x7f"
        "ELF\x02\x01\x01";
    module_text out;
    std::string error;
    EXPECT_EQ(module_ptx(cubin, sizeof cubin, CB_MODULE_CUBIN, 12, 0, out, error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("code=compute_"), std::string::npos) << error;
}

TEST(ModuleSource, EmptyImagesAndUnknownFormatsAreInvalid) {
    module_text out;
    std::string error;
    EXPECT_EQ(module_ptx(nullptr, 0, CB_MODULE_PTX, 12, 0, out, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(module_ptx("x", 1, 99, 12, 0, out, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("99"), std::string::npos) << error;
}

TEST(ModuleSource, WithoutNvrtcCudaSourceGetsAClearError) {
    const nvrtc_library missing({"/nonexistent/libnvrtc.so.13"});
    const std::string source = corpus_file("kernels/saxpy.cu");
    module_text out;
    std::string error;
    EXPECT_EQ(compile_cuda_source(missing, source.data(), source.size(), 12, 0, out, error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("no NVRTC on this machine"), std::string::npos) << error;
}

TEST(ModuleSource, CudaSourceCompilesToPtxWhereNvrtcExists) {
    const nvrtc_library nvrtc({"libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so"});
    if (!nvrtc.available()) GTEST_SKIP() << "no NVRTC here: " << nvrtc.status().reason;
    const std::string source = corpus_file("kernels/saxpy.cu");
    module_text out;
    std::string error;
    ASSERT_EQ(compile_cuda_source(nvrtc, source.data(), source.size(), 8, 6, out, error), CB_OK) << error;
    EXPECT_NE(out.ptx.find(".entry saxpy"), std::string::npos) << out.ptx.substr(0, 400);
    EXPECT_NE(out.ptx.find(".target sm_86"), std::string::npos) << out.ptx.substr(0, 400);
    const std::string broken = "__global__ void k() { undeclared(); }";
    EXPECT_EQ(compile_cuda_source(nvrtc, broken.data(), broken.size(), 8, 6, out, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(out.log.find("undeclared"), std::string::npos) << out.log;
}

}  // namespace
}  // namespace cudabridge::nv::test

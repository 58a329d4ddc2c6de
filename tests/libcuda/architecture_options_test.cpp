// CudaBridge's libnvrtc.so.13 compiles a program asked for a real architecture (machine code,
// sm_NN) for the matching virtual one (PTX, compute_NN), whichever way the option is spelt, and
// leaves every other option as it was.
#include "architecture_options.hpp"

#include <gtest/gtest.h>

namespace cudabridge::nvrtc {
namespace {

using list = std::vector<std::string>;

TEST(NvrtcArchitecture, ARealArchitectureBecomesItsVirtualOneInEachSpelling) {
    EXPECT_EQ(to_virtual_architecture({"--gpu-architecture=sm_120"}).options, list{"--gpu-architecture=compute_120"});
    EXPECT_EQ(to_virtual_architecture({"-arch=sm_75"}).options, list{"-arch=compute_75"});
    EXPECT_EQ(to_virtual_architecture({"--gpu-architecture", "sm_86"}).options,
              (list{"--gpu-architecture", "compute_86"}));
    EXPECT_EQ(to_virtual_architecture({"-arch", "sm_90a"}).options, (list{"-arch", "compute_90a"}));
    EXPECT_TRUE(to_virtual_architecture({"-arch=sm_75"}).asked_for_machine_code);
}

TEST(NvrtcArchitecture, AVirtualArchitectureAndOtherOptionsStayAsGiven) {
    const list given = {"--gpu-architecture=compute_120", "-default-device", "--std=c++17", "-I/opt/include",
                        "-DARCH=sm_75"};
    const rewritten_options r = to_virtual_architecture(given);
    EXPECT_EQ(r.options, given);
    EXPECT_FALSE(r.asked_for_machine_code);
    EXPECT_FALSE(to_virtual_architecture({}).asked_for_machine_code);
}

TEST(NvrtcArchitecture, AFlagWithoutAValueOrABareSmIsLeftForNvrtcToJudge) {
    EXPECT_EQ(to_virtual_architecture({"-arch"}).options, list{"-arch"});
    EXPECT_EQ(to_virtual_architecture({"-arch=sm_"}).options, list{"-arch=sm_"});
    EXPECT_FALSE(to_virtual_architecture({"-arch=sm_"}).asked_for_machine_code);
}

TEST(NvrtcArchitecture, EveryArchitectureOptionIsRewritten) {
    const rewritten_options r = to_virtual_architecture({"-arch=sm_75", "--gpu-architecture=sm_80"});
    EXPECT_EQ(r.options, (list{"-arch=compute_75", "--gpu-architecture=compute_80"}));
}

}  // namespace
}  // namespace cudabridge::nvrtc

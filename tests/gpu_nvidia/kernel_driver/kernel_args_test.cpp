// cb_kernel_arg packing for cuLaunchKernel: narrowed to the kernel's parameter sizes when the
// driver reports them, refused when a value cannot fit, 8 bytes each otherwise.
#include <gtest/gtest.h>

#include <cstring>

#include "nvidia_driver/kernel_driver/kernel_args.hpp"

using namespace cudabridge::nv;

namespace {

cb_kernel_launch launch_with(const std::vector<cb_kernel_arg>& args) {
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = "k";
    l.args = args.data();
    l.arg_count = args.size();
    return l;
}

template <class T>
T read(void* p) {
    T v{};
    std::memcpy(&v, p, sizeof v);
    return v;
}

}  // namespace

TEST(KernelArgs, NarrowedToParameterSizes) {
    std::string error;
    struct pair {
        int32_t a, b;
    } bytes{3, 4};
    std::vector<cb_kernel_arg> args(6);
    args[0].type = CB_ARG_DEVICE_PTR;
    args[0].value.device_ptr = 0xABCDEF;
    args[1].type = CB_ARG_INT64;
    args[1].value.i64 = -5;
    args[2].type = CB_ARG_FLOAT64;
    args[2].value.f64 = 1.5;
    args[3].type = CB_ARG_UINT64;
    args[3].value.u64 = 200;
    args[4].type = CB_ARG_BYTES;
    args[4].size = sizeof bytes;
    args[4].value.bytes = &bytes;
    args[5].type = CB_ARG_FLOAT64;
    args[5].value.f64 = 2.25;
    packed_kernel_args packed;
    ASSERT_EQ(packed.pack(launch_with(args), std::vector<std::size_t>{8, 4, 4, 1, 8, 8}, error), CB_OK);
    void** p = packed.params();
    EXPECT_EQ(read<uint64_t>(p[0]), 0xABCDEFu);
    EXPECT_EQ(read<int32_t>(p[1]), -5);
    EXPECT_FLOAT_EQ(read<float>(p[2]), 1.5f);
    EXPECT_EQ(read<uint8_t>(p[3]), 200);
    EXPECT_EQ(read<pair>(p[4]).b, 4);
    EXPECT_DOUBLE_EQ(read<double>(p[5]), 2.25);
}

TEST(KernelArgs, RefusedWhenTheyCannotFit) {
    std::string error;
    std::vector<cb_kernel_arg> args(1);
    args[0].type = CB_ARG_INT64;
    args[0].value.i64 = 70000;
    packed_kernel_args packed;
    cb_status s = packed.pack(launch_with(args), std::vector<std::size_t>{2}, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("does not fit the 2-byte parameter"), std::string::npos) << error;
    args[0].type = CB_ARG_DEVICE_PTR;
    EXPECT_EQ(packed.pack(launch_with(args), std::vector<std::size_t>{4}, error), CB_ERR_INVALID_ARGUMENT);
    args[0].type = CB_ARG_BYTES;
    args[0].size = 3;
    args[0].value.bytes = "abc";
    EXPECT_EQ(packed.pack(launch_with(args), std::vector<std::size_t>{4}, error), CB_ERR_INVALID_ARGUMENT);
    args[0].value.bytes = nullptr;
    EXPECT_EQ(packed.pack(launch_with(args), std::nullopt, error), CB_ERR_INVALID_ARGUMENT);
    args[0].type = 99;
    EXPECT_EQ(packed.pack(launch_with(args), std::nullopt, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(packed.pack(launch_with(args), std::vector<std::size_t>{}, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(KernelArgs, EightBytesWithoutParameterInfo) {
    std::string error;
    std::vector<cb_kernel_arg> args(2);
    args[0].type = CB_ARG_INT64;
    args[0].value.i64 = -1;
    args[1].type = CB_ARG_FLOAT64;
    args[1].value.f64 = 0.125;
    packed_kernel_args packed;
    ASSERT_EQ(packed.pack(launch_with(args), std::nullopt, error), CB_OK);
    EXPECT_EQ(read<int64_t>(packed.params()[0]), -1);
    EXPECT_DOUBLE_EQ(read<double>(packed.params()[1]), 0.125);
    packed_kernel_args empty;
    ASSERT_EQ(empty.pack(launch_with({}), std::nullopt, error), CB_OK);
    EXPECT_EQ(empty.params(), nullptr);
}

// Every fatbin entry point the CUDA launcher can ask for exists in the fatbin, and the fatbin
// exports nothing the launcher never asks for (the list comes from the preprocessed .cu).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <string_view>

#include "nvidia_driver/cuda_kernels/kernel_abi.hpp"
#include "nvidia_driver/kernel_driver/builtin_launcher.hpp"
#include "common/kernels/dtype.hpp"
#include "common/kernels/promotion.hpp"

using namespace cudabridge::nv;

#ifdef CB_TEST_BUILTIN_KERNEL_NAMES
namespace {

// Whether every dtype of a call has fatbin kernels (the launcher refuses the others).
bool on_gpu(std::initializer_list<cb_dtype> dtypes) {
    for (cb_dtype d : dtypes)
        if (!fatbin_has_dtype(d)) return false;
    return true;
}

// The names builtin_launcher.cpp builds, over every dtype the type rules allow.
std::set<std::string> launcher_names() {
    std::string error;
    std::set<std::string> names;
    for (int op = 0; op <= int(kernels::binary_op::greater_equal); ++op)
        for (cb_dtype a = 0; a < kernels::k_dtype_count; ++a)
            for (cb_dtype b = 0; b < kernels::k_dtype_count; ++b) {
                kernels::op_types t{};
                if (kernels::binary_types(kernels::binary_op(op), a, b, t, error) == CB_OK &&
                    on_gpu({a, b, t.compute, t.result}))
                    names.insert(binary_kernel_name(kernels::binary_op(op), t.compute));
            }
    for (int op = 0; op <= int(kernels::unary_op::abs); ++op)
        for (cb_dtype a = 0; a < kernels::k_dtype_count; ++a) {
            kernels::op_types t{};
            if (kernels::unary_types(kernels::unary_op(op), a, t, error) == CB_OK && on_gpu({a, t.result}))
                names.insert(std::string("cb_unary_") + cuda_kernels::k_unary_tokens[op] + "_" +
                             kernels::dtype_name(a));
        }
    for (cb_dtype to = 0; to < kernels::k_dtype_count; ++to)
        for (cb_dtype from = 0; from < kernels::k_dtype_count; ++from)
            if (on_gpu({to, from})) names.insert(cast_kernel_name(to, from));
    for (int bytes : {1, 2, 4, 8})
        for (const char* kind : {"cb_fill_", "cb_take_", "cb_put_", "cb_copyto_"})
            names.insert(kind + std::to_string(bytes));
    for (cb_dtype d = 0; d < kernels::k_dtype_count; ++d) {
        if (!on_gpu({d})) continue;
        const std::string dn = kernels::dtype_name(d);
        names.insert("cb_arange_" + dn);
        names.insert("cb_matmul_" + dn);
        names.insert("cb_sort_" + dn);
        names.insert("cb_argsort_" + dn);
        names.insert("cb_sort_step_" + dn);
        names.insert("cb_argsort_step_" + dn);
        for (const char* op : cuda_kernels::k_reduce_tokens) {
            // nanmax / nanmin of integers and bool run the max / min kernels.
            const bool nan_skipping = std::string_view(op).starts_with("nan");
            if (nan_skipping && !kernels::is_float_dtype(d)) continue;
            for (const char* kind : {"rows", "finish", "cols"})
                names.insert(std::string("cb_reduce_") + kind + "_" + op + "_" + dn);
        }
    }
    names.insert("cb_random_uniform_float32");
    names.insert("cb_random_uniform_float64");
    names.insert("cb_crc32c");
    return names;
}

}  // namespace
#endif

TEST(BuiltinKernelNames, LauncherAndFatbinAgree) {
#ifndef CB_TEST_BUILTIN_KERNEL_NAMES
    GTEST_SKIP() << "built without the CUDA toolkit: no fatbin";
#else
    std::ifstream in(CB_TEST_BUILTIN_KERNEL_NAMES);
    ASSERT_TRUE(in) << CB_TEST_BUILTIN_KERNEL_NAMES;
    std::set<std::string> exported;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) exported.insert(line);
    const std::set<std::string> wanted = launcher_names();
    for (const auto& name : wanted) EXPECT_TRUE(exported.count(name)) << "the fatbin lacks " << name;
    for (const auto& name : exported) EXPECT_TRUE(wanted.count(name)) << "the launcher never uses " << name;
    EXPECT_EQ(exported.size(), 986u);  // uint16, uint32 and uint64 in every per-dtype table: 309 more than 665;
                                       // nanmax and nanmin of float32 / float64: 12
#endif
}

// Each kernel-name token is its op's numpy name (the launcher indexes the tables by the enum).
TEST(BuiltinKernelNames, TokensFollowTheOpEnums) {
    for (int op = 0; op <= int(kernels::binary_op::greater_equal); ++op) {
        const std::string want =
            op == int(kernels::binary_op::divide) ? "divide" : kernels::op_name(kernels::binary_op(op));
        EXPECT_EQ(cuda_kernels::k_binary_tokens[op], want);
    }
    for (int op = 0; op <= int(kernels::unary_op::abs); ++op) {
        const std::string want =
            op == int(kernels::unary_op::negate) ? "negate" : kernels::op_name(kernels::unary_op(op));
        EXPECT_EQ(cuda_kernels::k_unary_tokens[op], want);
    }
}

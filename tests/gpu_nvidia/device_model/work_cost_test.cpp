// The roofline prices of device-only work, against figures computed here from the profile's
// published numbers (memory bandwidth, CUDA cores, boost clock).
#include "sim/device_model/work_cost.hpp"

#include <cudabridge/cpp/builtin_args.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace cudabridge::test {
namespace {

const nv::gpu_profile& rtx_5090() { return *nv::find_profile_by_key("rtx-5090"); }

nv::builtin_call parse(const char* name, cb_dtype dtype, std::vector<cb_kernel_arg> args) {
    std::string error;
    cb_kernel_launch l = sdk::builtin_launch(name, dtype, args);
    nv::builtin_call call;
    cb_status parsed = nv::parse_builtin(l, call, error);
    EXPECT_EQ(parsed, CB_OK) << error;
    return call;
}

TEST(WorkCost, TheRooflineIsTheProfilesBandwidthAndTwoFlopsPerCorePerClock) {
    const nv::roofline r = nv::roofline_of(rtx_5090());
    EXPECT_DOUBLE_EQ(r.bytes_per_ns, 1792.0);                       // 1792 GB/s
    EXPECT_NEAR(r.flops_per_ns, 21760.0 * 2410e6 * 2 / 1e9, 1e-6);  // 104.9 TFLOPS
}

TEST(WorkCost, CopiesAndMemsetAreMemoryBound) {
    const nv::roofline r = nv::roofline_of(rtx_5090());
    const uint64_t gib = 1ull << 30;
    EXPECT_EQ(nv::modeled_duration_ns(r, nv::memset_work(gib)), static_cast<uint64_t>(std::ceil(gib / 1792.0)));
    EXPECT_EQ(nv::modeled_duration_ns(r, nv::copy_d2d_work(gib)), static_cast<uint64_t>(std::ceil(2.0 * gib / 1792.0)));
    EXPECT_EQ(nv::modeled_duration_ns(r, nv::memset_work(0)), 0u);
}

TEST(WorkCost, ElementwiseKernelsMoveEveryOperandOnce) {
    const uint64_t base = 0x1000'0000;
    const int64_t n = 1 << 20;
    const auto a = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {n});
    const auto b = sdk::contiguous_tensor(base + 4 * n, CB_DTYPE_FLOAT32, {n});
    const auto out = sdk::contiguous_tensor(base + 8 * n, CB_DTYPE_FLOAT32, {n});
    const nv::work_amount w = nv::builtin_work(
        parse("add", CB_DTYPE_FLOAT32, {sdk::tensor_arg(a), sdk::tensor_arg(b), sdk::tensor_arg(out)}));
    EXPECT_DOUBLE_EQ(w.bytes, 3.0 * 4 * n);
    EXPECT_DOUBLE_EQ(w.flops, static_cast<double>(n));
    const nv::roofline r = nv::roofline_of(rtx_5090());
    // Plus the 3 us every kernel launch pays.
    EXPECT_EQ(nv::modeled_duration_ns(r, w), static_cast<uint64_t>(std::ceil(12.0 * n / 1792.0 + 3000.0)));
}

TEST(WorkCost, ABroadcastOperandCountsItsOwnBytesOnly) {
    const uint64_t base = 0x1000'0000;
    const auto m = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {256, 64});
    const auto row = sdk::contiguous_tensor(base + 0x100000, CB_DTYPE_FLOAT32, {64});
    const auto out = sdk::contiguous_tensor(base + 0x200000, CB_DTYPE_FLOAT32, {256, 64});
    const nv::work_amount w = nv::builtin_work(
        parse("add", CB_DTYPE_FLOAT32, {sdk::tensor_arg(m), sdk::tensor_arg(row), sdk::tensor_arg(out)}));
    EXPECT_DOUBLE_EQ(w.bytes, 256.0 * 64 * 4 * 2 + 64 * 4);
    // A stride-0 view over one element: 4 bytes, whatever its shape.
    cb_tensor_desc scalar_view = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {1000});
    scalar_view.strides[0] = 0;
    const auto out2 = sdk::contiguous_tensor(base + 0x300000, CB_DTYPE_FLOAT32, {1000});
    const nv::work_amount w2 =
        nv::builtin_work(parse("negative", CB_DTYPE_FLOAT32, {sdk::tensor_arg(scalar_view), sdk::tensor_arg(out2)}));
    EXPECT_DOUBLE_EQ(w2.bytes, 4.0 + 4000.0);
}

TEST(WorkCost, MatmulIsTwoMnkFlopsAndComputeBoundWhenLarge) {
    const uint64_t base = 0x1000'0000;
    const int64_t m = 1024, k = 512, n = 2048;
    const auto a = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {m, k});
    const auto b = sdk::contiguous_tensor(base + 0x1000000, CB_DTYPE_FLOAT32, {k, n});
    const auto out = sdk::contiguous_tensor(base + 0x2000000, CB_DTYPE_FLOAT32, {m, n});
    const nv::work_amount w = nv::builtin_work(
        parse("matmul", CB_DTYPE_FLOAT32, {sdk::tensor_arg(a), sdk::tensor_arg(b), sdk::tensor_arg(out)}));
    EXPECT_DOUBLE_EQ(w.flops, 2.0 * m * n * k);
    EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (m * k + k * n + m * n));
    const double peak = 21760.0 * 2410 * 2 / 1000;  // flops per ns
    const nv::roofline r = nv::roofline_of(rtx_5090());
    EXPECT_EQ(nv::modeled_duration_ns(r, w), static_cast<uint64_t>(std::ceil(2.0 * m * n * k / peak + 3000.0)));
    // Matrix-vector: n = 1.
    const auto v = sdk::contiguous_tensor(base + 0x1000000, CB_DTYPE_FLOAT32, {k});
    const auto mv = sdk::contiguous_tensor(base + 0x2000000, CB_DTYPE_FLOAT32, {m});
    EXPECT_DOUBLE_EQ(nv::builtin_work(parse("matmul", CB_DTYPE_FLOAT32,
                                            {sdk::tensor_arg(a), sdk::tensor_arg(v), sdk::tensor_arg(mv)}))
                         .flops,
                     2.0 * m * k);
}

TEST(WorkCost, ReductionsCountTheirInputElements) {
    const uint64_t base = 0x1000'0000;
    const auto in = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT64, {1000, 30});
    const auto out = sdk::contiguous_tensor(base + 0x100000, CB_DTYPE_FLOAT64, {});
    const nv::work_amount w = nv::builtin_work(parse(
        "sum", CB_DTYPE_FLOAT64, {sdk::tensor_arg(in), sdk::tensor_arg(out), sdk::int64_arg(CB_REDUCE_ALL_AXES)}));
    EXPECT_DOUBLE_EQ(w.flops, 30000.0);
    EXPECT_DOUBLE_EQ(w.bytes, 8.0 * 30000 + 8);
}

TEST(WorkCost, HostKernelsCountPointerSpansAndThreads) {
    nv::host_kernel_launch l;
    l.grid[0] = 40;
    l.grid[1] = 2;
    l.block[0] = 128;
    l.block[1] = 2;
    nv::host_kernel_arg p;
    p.type = CB_ARG_DEVICE_PTR;
    p.span = 1 << 20;
    nv::host_kernel_arg scalar;
    scalar.type = CB_ARG_INT64;
    l.args = {p, scalar, p};
    const nv::work_amount w = nv::host_kernel_work(l);
    EXPECT_DOUBLE_EQ(w.bytes, 2.0 * (1 << 20));
    EXPECT_DOUBLE_EQ(w.flops, 40.0 * 2 * 128 * 2);
}

TEST(WorkCost, AProfileWithoutFiguresPricesNothingInsteadOfDividingByZero) {
    nv::gpu_profile empty;
    EXPECT_EQ(nv::modeled_duration_ns(nv::roofline_of(empty), nv::memset_work(1 << 20)), 0u);
}

}  // namespace
}  // namespace cudabridge::test

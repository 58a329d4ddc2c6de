// The built-in calling convention: parsing (names, argument kinds, NumPy shape/dtype rules), the
// ring's launch block codec, and CPU execution against a device address range.
#include "common/launch/builtin_call.hpp"
#include "common/kernels/promotion.hpp"

#include <cudabridge/cpp/builtin_args.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace cudabridge::nv {
namespace {

constexpr uint64_t base = 0x10000000000ull;  // where the test's "device memory" starts

TEST(BuiltinCall, ParsesAddWithBroadcasting) {
    std::string error;
    auto a = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {2, 3});
    auto b = sdk::contiguous_tensor(base + 64, CB_DTYPE_INT32, {3});
    auto out = sdk::contiguous_tensor(base + 128, CB_DTYPE_FLOAT64, {2, 3});  // float32 + int32 -> float64
    std::vector<cb_kernel_arg> args = {sdk::tensor_arg(a), sdk::tensor_arg(b), sdk::tensor_arg(out)};
    builtin_call c;
    cb_status s = parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT64, args), c, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(c.kind, builtin_kind::binary);
    EXPECT_EQ(c.binary, kernels::binary_op::add);
    ASSERT_EQ(c.tensors.size(), 3u);
    EXPECT_EQ(c.output().device_ptr, base + 128);
}

TEST(BuiltinCall, RefusesWrongOutputDtypeShapeAndNames) {
    std::string error;
    auto a = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {2, 3});
    auto bad_shape = sdk::contiguous_tensor(base + 128, CB_DTYPE_FLOAT32, {3, 2});
    auto bad_dtype = sdk::contiguous_tensor(base + 128, CB_DTYPE_INT32, {2, 3});
    builtin_call c;
    std::vector<cb_kernel_arg> args = {sdk::tensor_arg(a), sdk::tensor_arg(a), sdk::tensor_arg(bad_shape)};
    cb_status s = parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT32, args), c, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("shape"), std::string::npos) << error;
    args[2] = sdk::tensor_arg(bad_dtype);
    s = parse_builtin(sdk::builtin_launch("add", CB_DTYPE_INT32, args), c, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("dtype"), std::string::npos) << error;
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("no_such_kernel", CB_DTYPE_FLOAT32, args), c, error), CB_ERR_NOT_FOUND);
    // Launch dtype differs from the output's.
    args[2] = sdk::tensor_arg(a);
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT64, args), c, error), CB_ERR_INVALID_ARGUMENT);
    // Broadcast failure carries numpy's message.
    auto b = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {4});
    args = {sdk::tensor_arg(a), sdk::tensor_arg(b), sdk::tensor_arg(a)};
    s = parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT32, args), c, error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("could not be broadcast"), std::string::npos) << error;
}

TEST(BuiltinCall, RefusesBadArgumentKindsAndDescriptors) {
    std::string error;
    auto a = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {4});
    builtin_call c;
    // Too few arguments.
    std::vector<cb_kernel_arg> args = {sdk::tensor_arg(a)};
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT32, args), c, error), CB_ERR_INVALID_ARGUMENT);
    // A scalar where a tensor belongs.
    args = {sdk::int64_arg(1), sdk::tensor_arg(a), sdk::tensor_arg(a)};
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT32, args), c, error), CB_ERR_INVALID_ARGUMENT);
    // Bad ndim, bad dtype, null pointer.
    auto bad = a;
    bad.ndim = 9;
    args = {sdk::tensor_arg(bad), sdk::tensor_arg(a), sdk::tensor_arg(a)};
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT32, args), c, error), CB_ERR_INVALID_ARGUMENT);
    bad = a;
    bad.dtype = 42;
    args = {sdk::tensor_arg(bad), sdk::tensor_arg(a), sdk::tensor_arg(a)};
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT32, args), c, error), CB_ERR_INVALID_ARGUMENT);
    bad = a;
    bad.device_ptr = 0;
    args = {sdk::tensor_arg(bad), sdk::tensor_arg(a), sdk::tensor_arg(a)};
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT32, args), c, error), CB_ERR_INVALID_ARGUMENT);
    // Strides whose extent overflows.
    bad = a;
    bad.strides[0] = INT64_MAX / 2;
    args = {sdk::tensor_arg(bad), sdk::tensor_arg(a), sdk::tensor_arg(a)};
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("add", CB_DTYPE_FLOAT32, args), c, error), CB_ERR_INVALID_ARGUMENT);
    // random_uniform only makes floats.
    auto ints = sdk::contiguous_tensor(base, CB_DTYPE_INT32, {4});
    cb_kernel_arg seed{};
    seed.type = CB_ARG_UINT64;
    args = {sdk::tensor_arg(ints), seed, seed};
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("random_uniform", CB_DTYPE_INT32, args), c, error), CB_ERR_UNSUPPORTED);
}

TEST(BuiltinCall, EveryNameParsesWithItsSignature) {
    EXPECT_EQ(builtin_names().size(), 87u);  // 24 + crc32c (ABI 1.3) + 54 ufuncs + prod + take put copyto
                                             // sort argsort + nanmax nanmin (ABI 1.12)
    for (const auto& name : builtin_names()) EXPECT_FALSE(name.empty());
}

TEST(BuiltinCall, LaunchBlockRoundTrips) {
    std::string error;
    auto in = sdk::contiguous_tensor(base, CB_DTYPE_INT16, {3, 5});
    auto out = sdk::contiguous_tensor(base + 4096, CB_DTYPE_INT64, {5});
    std::vector<cb_kernel_arg> args = {sdk::tensor_arg(in), sdk::tensor_arg(out), sdk::int64_arg(0)};
    builtin_call c;
    ASSERT_EQ(parse_builtin(sdk::builtin_launch("sum", CB_DTYPE_INT64, args), c, error), CB_OK);
    auto bytes = encode(c);
    builtin_call d;
    cb_status s = decode(bytes.data(), bytes.size(), d, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(d.kind, builtin_kind::reduce);
    EXPECT_EQ(d.reduce, kernels::reduce_op::sum);
    {  // prod (added between mean and max) survives the block too
        builtin_call p, q;
        ASSERT_EQ(parse_builtin(sdk::builtin_launch("prod", CB_DTYPE_INT64, args), p, error), CB_OK) << error;
        auto pb = encode(p);
        ASSERT_EQ(decode(pb.data(), pb.size(), q, error), CB_OK) << error;
        EXPECT_EQ(q.kind, builtin_kind::reduce);
        EXPECT_EQ(q.reduce, kernels::reduce_op::prod);
    }
    EXPECT_EQ(d.axis, 0);
    EXPECT_EQ(d.dtype, CB_DTYPE_INT64);
    ASSERT_EQ(d.tensors.size(), 2u);
    EXPECT_EQ(0, std::memcmp(&d.tensors[0], &in, sizeof in));
    EXPECT_EQ(0, std::memcmp(&d.tensors[1], &out, sizeof out));
    // Truncated, corrupted and oversized blocks are refused.
    EXPECT_NE(decode(bytes.data(), bytes.size() - 1, d, error), CB_OK);
    auto bad = bytes;
    bad[0] ^= 0xFF;
    EXPECT_NE(decode(bad.data(), bad.size(), d, error), CB_OK);
    bad = bytes;
    bad[4] = 99;  // kind
    EXPECT_NE(decode(bad.data(), bad.size(), d, error), CB_OK);
    EXPECT_NE(decode(nullptr, 0, d, error), CB_OK);
}

// Every elementwise kernel (the ufuncs) parses by its numpy name, with numpy's result dtype, and
// its operation survives the launch block; an operation number past the last one is refused.
TEST(BuiltinCall, EveryUfuncParsesAndRoundTrips) {
    std::string error;
    auto f = sdk::contiguous_tensor(base, CB_DTYPE_INT32, {4});
    for (int k = 0; k <= int(kernels::binary_op::greater_equal); ++k) {
        const auto op = kernels::binary_op(k);
        const std::string name = op == kernels::binary_op::divide ? "divide" : kernels::op_name(op);
        const cb_dtype result = kernels::result_dtype(op, CB_DTYPE_INT32, CB_DTYPE_INT32);
        ASSERT_GE(result, 0) << name;
        auto out = sdk::contiguous_tensor(base + 4096, result, {4});
        std::vector<cb_kernel_arg> args = {sdk::tensor_arg(f), sdk::tensor_arg(f), sdk::tensor_arg(out)};
        builtin_call c;
        ASSERT_EQ(parse_builtin(sdk::builtin_launch(name.c_str(), result, args), c, error), CB_OK) << name << error;
        auto bytes = encode(c);
        builtin_call d;
        ASSERT_EQ(decode(bytes.data(), bytes.size(), d, error), CB_OK) << name << error;
        EXPECT_EQ(d.kind, builtin_kind::binary) << name;
        EXPECT_EQ(d.binary, op) << name;
    }
    for (int k = 0; k <= int(kernels::unary_op::abs); ++k) {
        const auto op = kernels::unary_op(k);
        kernels::op_types t{};
        ASSERT_EQ(kernels::unary_types(op, CB_DTYPE_INT32, t, error), CB_OK) << kernels::op_name(op);
        auto out = sdk::contiguous_tensor(base + 4096, t.result, {4});
        std::vector<cb_kernel_arg> args = {sdk::tensor_arg(f), sdk::tensor_arg(out)};
        builtin_call c;
        ASSERT_EQ(parse_builtin(sdk::builtin_launch(kernels::op_name(op), t.result, args), c, error), CB_OK)
            << kernels::op_name(op) << error;
        auto bytes = encode(c);
        builtin_call d;
        ASSERT_EQ(decode(bytes.data(), bytes.size(), d, error), CB_OK) << error;
        EXPECT_EQ(d.unary, op) << kernels::op_name(op);
        if (k == int(kernels::unary_op::abs)) {
            int32_t past = k + 1;
            std::memcpy(bytes.data() + 8, &past, sizeof past);  // block_header::op
            EXPECT_EQ(decode(bytes.data(), bytes.size(), d, error), CB_ERR_INVALID_ARGUMENT);
        }
    }
    // exp of int32 writes float64: an int32 output is refused.
    std::vector<cb_kernel_arg> args = {sdk::tensor_arg(f), sdk::tensor_arg(f)};
    builtin_call c;
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("exp", CB_DTYPE_INT32, args), c, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(BuiltinCall, RunsOnTheCpuThroughTheResolver) {
    std::string error;
    // Device memory: 3 float64 at base, 3 float64 at base+64, output at base+128.
    std::vector<double> memory(32, 0.0);
    memory[0] = 1.5;
    memory[1] = -2.0;
    memory[2] = 4.25;
    memory[8] = 10.0;
    memory[9] = 20.0;
    memory[10] = 30.0;
    auto resolve = [&](uint64_t addr, uint64_t bytes) -> void* {
        if (addr < base || addr + bytes > base + memory.size() * sizeof(double)) return nullptr;
        return reinterpret_cast<uint8_t*>(memory.data()) + (addr - base);
    };
    auto a = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT64, {3});
    auto b = sdk::contiguous_tensor(base + 64, CB_DTYPE_FLOAT64, {3});
    auto out = sdk::contiguous_tensor(base + 128, CB_DTYPE_FLOAT64, {3});
    std::vector<cb_kernel_arg> args = {sdk::tensor_arg(a), sdk::tensor_arg(b), sdk::tensor_arg(out)};
    builtin_call c;
    ASSERT_EQ(parse_builtin(sdk::builtin_launch("multiply", CB_DTYPE_FLOAT64, args), c, error), CB_OK);
    kernels::engine eng(1);
    cb_status s = run_on_cpu(c, resolve, eng, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(memory[16], 15.0);
    EXPECT_EQ(memory[17], -40.0);
    EXPECT_EQ(memory[18], 127.5);
    // An output beyond device memory is refused, not written.
    auto far = sdk::contiguous_tensor(base + 8 * 31, CB_DTYPE_FLOAT64, {3});
    args[2] = sdk::tensor_arg(far);
    ASSERT_EQ(parse_builtin(sdk::builtin_launch("multiply", CB_DTYPE_FLOAT64, args), c, error), CB_OK);
    EXPECT_EQ(run_on_cpu(c, resolve, eng, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(BuiltinCall, Crc32cParsesChecksAndRoundTrips) {
    std::string error;
    auto in = sdk::contiguous_tensor(base, CB_DTYPE_UINT8, {10});
    auto out = sdk::contiguous_tensor(base + 64, CB_DTYPE_INT64, {3});  // ceil(10 / 4)
    std::vector<cb_kernel_arg> args = {sdk::tensor_arg(in), sdk::tensor_arg(out), sdk::int64_arg(4)};
    builtin_call c;
    cb_status s = parse_builtin(sdk::builtin_launch("crc32c", CB_DTYPE_INT64, args), c, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(c.kind, builtin_kind::crc32c);
    EXPECT_EQ(c.chunk, 4);
    auto bytes = encode(c);
    builtin_call d;
    ASSERT_EQ(decode(bytes.data(), bytes.size(), d, error), CB_OK);
    EXPECT_EQ(d.kind, builtin_kind::crc32c);
    EXPECT_EQ(d.chunk, 4);

    auto refused = [&](std::vector<cb_kernel_arg> a, const char* text, cb_dtype dtype = CB_DTYPE_INT64) {
        cb_status r = parse_builtin(sdk::builtin_launch("crc32c", dtype, a), c, error);
        EXPECT_EQ(r, CB_ERR_INVALID_ARGUMENT) << text;
        EXPECT_NE(error.find(text), std::string::npos) << error;
    };
    refused({sdk::tensor_arg(in), sdk::tensor_arg(out), sdk::int64_arg(0)}, "chunk size must be > 0");
    refused({sdk::tensor_arg(in), sdk::tensor_arg(out), sdk::int64_arg(-3)}, "chunk size must be > 0");
    refused({sdk::tensor_arg(in), sdk::tensor_arg(out), sdk::float64_arg(4)}, "INT64 chunk");
    auto wrong_count = sdk::contiguous_tensor(base + 64, CB_DTYPE_INT64, {2});
    refused({sdk::tensor_arg(in), sdk::tensor_arg(wrong_count), sdk::int64_arg(4)}, "shape");
    auto wrong_out = sdk::contiguous_tensor(base + 64, CB_DTYPE_INT32, {3});
    refused({sdk::tensor_arg(in), sdk::tensor_arg(wrong_out), sdk::int64_arg(4)}, "dtype", CB_DTYPE_INT32);
    auto floats = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {10});
    refused({sdk::tensor_arg(floats), sdk::tensor_arg(out), sdk::int64_arg(4)}, "contiguous 1-D uint8");
    auto matrix = sdk::contiguous_tensor(base, CB_DTYPE_UINT8, {2, 5});
    refused({sdk::tensor_arg(matrix), sdk::tensor_arg(out), sdk::int64_arg(4)}, "contiguous 1-D uint8");
    auto strided = in;
    strided.shape[0] = 5;
    strided.strides[0] = 2;
    auto two = sdk::contiguous_tensor(base + 64, CB_DTYPE_INT64, {2});
    refused({sdk::tensor_arg(strided), sdk::tensor_arg(two), sdk::int64_arg(4)}, "contiguous 1-D uint8");
    // Empty input: no output elements.
    auto empty = sdk::contiguous_tensor(base, CB_DTYPE_UINT8, {0});
    auto none = sdk::contiguous_tensor(base + 64, CB_DTYPE_INT64, {0});
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("crc32c", CB_DTYPE_INT64,
                                                {sdk::tensor_arg(empty), sdk::tensor_arg(none), sdk::int64_arg(8)}),
                            c, error),
              CB_OK);
}

TEST(BuiltinCall, Crc32cRunsOnTheCpu) {
    std::string error;
    std::vector<uint8_t> memory(64, 0);
    std::memcpy(memory.data(), "123456789", 9);
    auto resolve = [&](uint64_t addr, uint64_t bytes) -> void* {
        if (addr < base || addr + bytes > base + memory.size()) return nullptr;
        return memory.data() + (addr - base);
    };
    auto in = sdk::contiguous_tensor(base, CB_DTYPE_UINT8, {9});
    auto out = sdk::contiguous_tensor(base + 16, CB_DTYPE_INT64, {1});
    std::vector<cb_kernel_arg> args = {sdk::tensor_arg(in), sdk::tensor_arg(out), sdk::int64_arg(9)};
    builtin_call c;
    ASSERT_EQ(parse_builtin(sdk::builtin_launch("crc32c", CB_DTYPE_INT64, args), c, error), CB_OK);
    kernels::engine eng(1);
    ASSERT_EQ(run_on_cpu(c, resolve, eng, error), CB_OK);
    int64_t crc = 0;
    std::memcpy(&crc, memory.data() + 16, sizeof crc);
    EXPECT_EQ(crc, 0xE3069283ll);
}

TEST(BuiltinCall, TensorExtentCoversNegativeAndBroadcastStrides) {
    auto t = sdk::contiguous_tensor(base, CB_DTYPE_INT32, {4});
    int64_t first = 0, end = 0;
    ASSERT_TRUE(tensor_extent(t, first, end));
    EXPECT_EQ(first, 0);
    EXPECT_EQ(end, 16);
    t.strides[0] = -1;  // reversed view: element 0 is the highest address
    ASSERT_TRUE(tensor_extent(t, first, end));
    EXPECT_EQ(first, -12);
    EXPECT_EQ(end, 4);
    t.strides[0] = 0;  // broadcast: one element
    ASSERT_TRUE(tensor_extent(t, first, end));
    EXPECT_EQ(end - first, 4);
    t.shape[0] = 0;
    EXPECT_FALSE(tensor_extent(t, first, end));
}

// take, put, copyto, sort and argsort: parsed with their checks, through the launch block, and run
// on the CPU engine over the resolver's memory.
TEST(BuiltinCall, IndexingAndSortingRunThroughTheLaunchBlock) {
    std::string error;
    std::vector<double> memory(32, 0.0);
    for (int i = 0; i < 4; ++i) memory[i] = 4.0 - i;  // in: 4 3 2 1
    auto* ints = reinterpret_cast<int64_t*>(&memory[8]);
    ints[0] = -1;  // indices: -1 5 (5 wraps to 1)
    ints[1] = 5;
    auto resolve = [&](uint64_t addr, uint64_t bytes) -> void* {
        if (addr < base || addr + bytes > base + memory.size() * 8) return nullptr;
        return reinterpret_cast<uint8_t*>(memory.data()) + (addr - base);
    };
    kernels::engine eng(1);
    auto run = [&](const char* name, cb_dtype dtype, std::vector<cb_kernel_arg> args) {
        builtin_call c, d;
        ASSERT_EQ(parse_builtin(sdk::builtin_launch(name, dtype, args), c, error), CB_OK) << error;
        auto bytes = encode(c);
        ASSERT_EQ(decode(bytes.data(), bytes.size(), d, error), CB_OK) << error;
        ASSERT_EQ(run_on_cpu(d, resolve, eng, error), CB_OK) << error;
    };
    auto in = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT64, {4});
    auto idx = sdk::contiguous_tensor(base + 64, CB_DTYPE_INT64, {2});
    auto out2 = sdk::contiguous_tensor(base + 128, CB_DTYPE_FLOAT64, {2});
    run("take", CB_DTYPE_FLOAT64, {sdk::tensor_arg(in), sdk::tensor_arg(idx), sdk::tensor_arg(out2)});
    EXPECT_EQ(memory[16], 1.0);
    EXPECT_EQ(memory[17], 3.0);
    memory[12] = 7.0;
    memory[13] = 8.0;
    auto vals = sdk::contiguous_tensor(base + 96, CB_DTYPE_FLOAT64, {2});
    run("put", CB_DTYPE_FLOAT64, {sdk::tensor_arg(vals), sdk::tensor_arg(idx), sdk::tensor_arg(in)});
    EXPECT_EQ(std::vector<double>(memory.begin(), memory.begin() + 4), (std::vector<double>{4, 8, 2, 7}));
    auto sorted = sdk::contiguous_tensor(base + 160, CB_DTYPE_FLOAT64, {4});
    run("sort", CB_DTYPE_FLOAT64, {sdk::tensor_arg(in), sdk::tensor_arg(sorted)});
    EXPECT_EQ(std::vector<double>(memory.begin() + 20, memory.begin() + 24), (std::vector<double>{2, 4, 7, 8}));
    auto order = sdk::contiguous_tensor(base + 192, CB_DTYPE_INT64, {4});
    run("argsort", CB_DTYPE_INT64, {sdk::tensor_arg(in), sdk::tensor_arg(order)});
    const auto* got = reinterpret_cast<const int64_t*>(&memory[24]);
    EXPECT_EQ(std::vector<int64_t>(got, got + 4), (std::vector<int64_t>{2, 0, 3, 1}));

    // The kernels' rules, refused at parse time: int64 indices, matching dtypes, contiguity.
    builtin_call c;
    auto in_f32 = sdk::contiguous_tensor(base, CB_DTYPE_FLOAT32, {4});
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("take", CB_DTYPE_FLOAT64,
                                                {sdk::tensor_arg(in_f32), sdk::tensor_arg(idx), sdk::tensor_arg(out2)}),
                            c, error),
              CB_ERR_INVALID_ARGUMENT);
    auto idx32 = sdk::contiguous_tensor(base + 64, CB_DTYPE_INT32, {2});
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("put", CB_DTYPE_FLOAT64,
                                                {sdk::tensor_arg(out2), sdk::tensor_arg(idx32), sdk::tensor_arg(in)}),
                            c, error),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("int64"), std::string::npos) << error;
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("copyto", CB_DTYPE_FLOAT64,
                                                {sdk::tensor_arg(in), sdk::tensor_arg(idx), sdk::tensor_arg(in)}),
                            c, error),
              CB_ERR_INVALID_ARGUMENT);  // the mask must be bool
    EXPECT_EQ(parse_builtin(sdk::builtin_launch("sort", CB_DTYPE_FLOAT64, {sdk::tensor_arg(in), sdk::tensor_arg(out2)}),
                            c, error),
              CB_ERR_INVALID_ARGUMENT);  // shape differs
}

}  // namespace
}  // namespace cudabridge::nv

// Host-kernel modules and launches as plain data: what a bad module image is refused for, the
// registry's ids and lifetimes, CUDA's grid and block limits, device pointers resolved by the
// caller, and launch blocks that round-trip while corrupt ones are refused.
#include "common/host_kernels/host_kernel_launch.hpp"
#include "common/host_kernels/host_kernel_module.hpp"
#include "sim/modules/module_registry.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace cudabridge::nv {
namespace {

cb_status kernel_a(const cb_host_kernel_call*) { return CB_OK; }
cb_status kernel_b(const cb_host_kernel_call*) { return CB_ERR_INTERNAL; }

cb_host_kernel_module module_of(const std::vector<cb_host_kernel>& kernels) {
    cb_host_kernel_module m{};
    m.struct_size = sizeof m;
    m.kernels = kernels.data();
    m.kernel_count = kernels.size();
    return m;
}

cb_status parse(const cb_host_kernel_module& m, host_kernel_module& out, std::string& error,
                size_t size = sizeof(cb_host_kernel_module)) {
    return parse_host_kernel_module(&m, size, out, error);
}

TEST(HostKernelModule, CopiesAValidTable) {
    std::string error;
    std::vector<cb_host_kernel> table = {{"a", &kernel_a}, {"b", &kernel_b}};
    host_kernel_module out;
    cb_status s = parse(module_of(table), out, error);
    ASSERT_EQ(s, CB_OK) << error;
    ASSERT_EQ(out.kernels.size(), 2u);
    EXPECT_EQ(out.find("a"), 0);
    EXPECT_EQ(out.find("b"), 1);
    EXPECT_EQ(out.find("c"), -1);
    EXPECT_EQ(out.kernels[1].fn, &kernel_b);
    table[0].name = "changed";  // the module keeps its own copy of the names
    EXPECT_EQ(out.find("a"), 0);
}

TEST(HostKernelModule, RefusesBadImages) {
    std::string error;
    auto refused = [&](const cb_host_kernel_module& m, const char* text, size_t size = sizeof(cb_host_kernel_module)) {
        host_kernel_module out;
        cb_status s = parse(m, out, error, size);
        EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT) << text;
        EXPECT_NE(error.find(text), std::string::npos) << error;
    };
    std::vector<cb_host_kernel> good = {{"a", &kernel_a}};
    refused(module_of(good), "smaller than a cb_host_kernel_module", 8);
    auto small = module_of(good);
    small.struct_size = 8;
    refused(small, "smaller than a cb_host_kernel_module");
    refused(module_of({}), "no kernels");
    auto no_table = module_of(good);
    no_table.kernels = nullptr;
    refused(no_table, "no kernels");
    std::vector<cb_host_kernel> unnamed = {{nullptr, &kernel_a}};
    refused(module_of(unnamed), "no name");
    std::vector<cb_host_kernel> empty_name = {{"", &kernel_a}};
    refused(module_of(empty_name), "no name");
    std::vector<cb_host_kernel> no_fn = {{"a", nullptr}};
    refused(module_of(no_fn), "'a' has no function");
    std::vector<cb_host_kernel> twice = {{"a", &kernel_a}, {"a", &kernel_b}};
    refused(module_of(twice), "'a' is named twice");
    host_kernel_module out;
    EXPECT_EQ(parse_host_kernel_module(nullptr, 32, out, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(ModuleRegistry, IdsLookupsAndRemoval) {
    module_registry registry;
    auto m = std::make_shared<host_kernel_module>();
    m->kernels.push_back({"a", &kernel_a});
    const uint64_t id = registry.add({m, nullptr});
    const uint64_t id2 = registry.add({m, nullptr});
    EXPECT_GE(id, 1u);
    EXPECT_NE(id, id2);
    EXPECT_EQ(registry.size(), 2u);
    auto held = registry.find(id).host_kernels;
    ASSERT_EQ(held, m);
    EXPECT_TRUE(registry.remove(id));
    EXPECT_FALSE(registry.remove(id));
    EXPECT_FALSE(registry.find(id));
    EXPECT_EQ(held->kernels.size(), 1u);         // a lookup keeps the module alive after removal
    EXPECT_GT(registry.add({m, nullptr}), id2);  // ids are never reused
}

cb_kernel_arg ptr_arg(uint64_t p) {
    cb_kernel_arg a{};
    a.type = CB_ARG_DEVICE_PTR;
    a.value.device_ptr = p;
    return a;
}

cb_kernel_launch launch_of(const std::vector<cb_kernel_arg>& args, std::array<uint32_t, 3> grid = {1, 1, 1},
                           std::array<uint32_t, 3> block = {1, 1, 1}) {
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = "k";
    for (int i = 0; i < 3; ++i) {
        l.grid[i] = grid[static_cast<size_t>(i)];
        l.block[i] = block[static_cast<size_t>(i)];
    }
    l.args = args.data();
    l.arg_count = args.size();
    return l;
}

// Pointers in [0x1000, 0x2000) are "allocated": offset = p - 0x1000, span to 0x2000.
cb_status resolve(size_t i, uint64_t p, uint64_t& offset, uint64_t& span, std::string& error) {
    if (p < 0x1000 || p >= 0x2000)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "argument " + std::to_string(i) + " unallocated");
    offset = p - 0x1000;
    span = 0x2000 - p;
    return CB_OK;
}

TEST(HostKernelLaunch, BuildsEncodesAndDecodes) {
    std::string error;
    const double scale = 2.5;
    struct {
        int32_t a;
        float b;
    } by_value{7, 0.5f};
    cb_kernel_arg bytes{};
    bytes.type = CB_ARG_BYTES;
    bytes.size = sizeof by_value;
    bytes.value.bytes = &by_value;
    cb_kernel_arg f{};
    f.type = CB_ARG_FLOAT64;
    f.value.f64 = scale;
    const std::vector<cb_kernel_arg> args = {ptr_arg(0x1800), f, bytes, ptr_arg(0)};
    host_kernel_launch l;
    cb_status s = make_host_kernel_launch(launch_of(args, {3, 2, 1}, {32, 1, 1}), "k", 9, 1, resolve, l, error);
    ASSERT_EQ(s, CB_OK) << error;
    EXPECT_EQ(l.block_count(), 6u);
    EXPECT_EQ(l.args[0].vram_offset, 0x800u);
    EXPECT_EQ(l.args[0].span, 0x800u);
    EXPECT_EQ(l.args[3].span, 0u);  // a null pointer travels as one

    const auto block = encode_host_kernel_launch(l);
    host_kernel_launch d;
    ASSERT_EQ(decode_host_kernel_launch(block.data(), block.size(), d, error), CB_OK);
    EXPECT_EQ(d.module_id, 9u);
    EXPECT_EQ(d.kernel_index, 1u);
    EXPECT_EQ(d.grid[0], 3u);
    EXPECT_EQ(d.grid[1], 2u);
    EXPECT_EQ(d.block[0], 32u);
    ASSERT_EQ(d.args.size(), 4u);
    EXPECT_EQ(d.args[0].value, 0x1800u);
    double back = 0;
    std::memcpy(&back, &d.args[1].value, sizeof back);
    EXPECT_EQ(back, scale);
    ASSERT_EQ(d.args[2].size, sizeof by_value);
    EXPECT_EQ(0, std::memcmp(d.payload.data() + d.args[2].value, &by_value, sizeof by_value));

    // Corrupt blocks are refused.
    EXPECT_NE(decode_host_kernel_launch(block.data(), block.size() - 1, d, error), CB_OK);
    auto bad = block;
    bad[0] ^= 1;
    EXPECT_NE(decode_host_kernel_launch(bad.data(), bad.size(), d, error), CB_OK);
    bad = block;
    bad[16] = 0;  // grid x = 0
    bad[17] = bad[18] = bad[19] = 0;
    EXPECT_NE(decode_host_kernel_launch(bad.data(), bad.size(), d, error), CB_OK);
    EXPECT_NE(decode_host_kernel_launch(nullptr, 0, d, error), CB_OK);
}

TEST(HostKernelLaunch, RefusesBadShapesAndArguments) {
    std::string error;
    host_kernel_launch l;
    auto refused = [&](const cb_kernel_launch& launch, const char* text) {
        cb_status s = make_host_kernel_launch(launch, "k", 1, 0, resolve, l, error);
        EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT) << text;
        EXPECT_NE(error.find(text), std::string::npos) << error;
    };
    const std::vector<cb_kernel_arg> none;
    refused(launch_of(none, {0, 1, 1}), "at least 1");
    refused(launch_of(none, {1, 1, 1}, {1, 0, 1}), "at least 1");
    refused(launch_of(none, {1, 65536, 1}), "grid y = 65536");
    refused(launch_of(none, {0x80000000u, 1, 1}), "grid x");
    refused(launch_of(none, {1, 1, 1}, {1025, 1, 1}), "block x = 1025");
    refused(launch_of(none, {1, 1, 1}, {1, 1, 65}), "block z = 65");
    refused(launch_of(none, {1, 1, 1}, {64, 32, 1}), "2048 threads");
    const std::vector<cb_kernel_arg> outside = {ptr_arg(0x3000)};
    refused(launch_of(outside), "argument 0 unallocated");
    cb_kernel_arg empty{};
    empty.type = CB_ARG_BYTES;
    refused(launch_of({empty}), "CB_ARG_BYTES without bytes");
    cb_kernel_arg unknown{};
    unknown.type = 42;
    refused(launch_of({unknown}), "unknown argument type 42");
    std::vector<uint8_t> big(max_host_kernel_arg_bytes + 1);
    cb_kernel_arg huge{};
    huge.type = CB_ARG_BYTES;
    huge.size = static_cast<uint32_t>(big.size());
    huge.value.bytes = big.data();
    refused(launch_of({huge}), "bytes of arguments by value");
    std::vector<cb_kernel_arg> many(max_host_kernel_args + 1, ptr_arg(0));
    refused(launch_of(many), "arguments (at most");
    cb_kernel_launch no_args = launch_of(none);
    no_args.arg_count = 2;
    refused(no_args, "args is NULL");
    // The largest block CUDA allows passes.
    EXPECT_EQ(make_host_kernel_launch(launch_of(none, {0x7FFFFFFFu, 65535, 65535}, {1024, 1, 1}), "k", 1, 0, resolve, l,
                                      error),
              CB_OK);
}

}  // namespace
}  // namespace cudabridge::nv

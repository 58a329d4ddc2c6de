// Every built-in kernel x dtype x broadcast shape run on the simulated GPU through the plugin's
// table (inputs copied over the simulated link, launched, results copied back), then recomputed
// by numpy itself (tests/gpu_nvidia/kernels/numpy_check.py with /usr/bin/python3). Skipped when
// that interpreter or numpy is missing.
#include "gpu_fixture.hpp"

#include "../kernels/test_util.hpp"
#include "common/kernels/broadcast.hpp"
#include "common/kernels/elementwise.hpp"
#include "common/kernels/matmul.hpp"
#include "common/kernels/promotion.hpp"
#include "common/kernels/reduce.hpp"

#include <cudabridge/core/error.hpp>

#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

namespace cudabridge::test {
namespace {

namespace fs = std::filesystem;
using kt::all_dtypes;
using nv::kernels::shape_t;
using nv::kernels::tensor;

const char* k_python = "/usr/bin/python3";

tensor wide_random(cb_dtype d, const std::vector<int64_t>& shape, unsigned seed) {
    tensor t(d, static_cast<int>(shape.size()), shape.data());
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 100.0);
    auto* bytes = static_cast<unsigned char*>(t.data());
    for (size_t i = 0; i < t.bytes(); ++i) bytes[i] = static_cast<unsigned char>(rng());
    for (int64_t i = 0; i < t.size(); ++i) {
        if (d == CB_DTYPE_BOOL)
            kt::set(t, i, double(rng() % 2));
        else if (nv::kernels::is_float_dtype(d))
            kt::set(t, i, rng() % 17 == 0 ? 0.0 : g(rng));
        else if (rng() % 13 == 0)
            kt::set(t, i, 0);
    }
    return t;
}

std::vector<int64_t> dims_of(const shape_t& s) { return {s.dims, s.dims + s.ndim}; }
std::vector<int64_t> dims_of(const tensor& t) { return {t.view().shape, t.view().shape + t.view().ndim}; }

class numpy_through_plugin : public gpu_test {
protected:
    // Uploads `inputs`, launches `name` with them, an output of (dtype, shape) and `extra` scalars,
    // and returns the downloaded output.
    tensor run(const char* name, const std::vector<const tensor*>& inputs, cb_dtype dtype,
               const std::vector<int64_t>& shape, const std::vector<cb_kernel_arg>& extra = {}) {
        std::vector<uint64_t> buffers;
        std::vector<cb_tensor_desc> descs;
        descs.reserve(inputs.size() + 1);
        for (const tensor* in : inputs) {
            uint64_t p = alloc(std::max<size_t>(in->bytes(), 1));
            upload(p, in->data(), in->bytes());
            buffers.push_back(p);
            descs.push_back(sdk::contiguous_tensor(p, in->view().dtype, dims_of(*in)));
        }
        tensor out(dtype, static_cast<int>(shape.size()), shape.data());
        uint64_t o = alloc(std::max<size_t>(out.bytes(), 1));
        buffers.push_back(o);
        descs.push_back(sdk::contiguous_tensor(o, dtype, shape));
        std::vector<cb_kernel_arg> args;
        for (const auto& d : descs) args.push_back(sdk::tensor_arg(d));
        args.insert(args.end(), extra.begin(), extra.end());
        auto launch = sdk::builtin_launch(name, dtype, args);
        EXPECT_EQ(g()->launch_builtin(gh(), dev, &launch, nullptr), CB_OK) << name << ": " << core::last_error();
        download(out.data(), o, out.bytes());
        for (auto p : buffers) EXPECT_EQ(g()->mem_free(gh(), dev, p), CB_OK);
        return out;
    }

    std::string save(const tensor& t) {
        std::string file = "a" + std::to_string(next_++) + ".bin";
        std::ofstream(dir_ / file, std::ios::binary)
            .write(static_cast<const char*>(t.data()), static_cast<std::streamsize>(t.bytes()));
        // A 0-d operand is handed to numpy as shape (1,): numpy 1.24 would apply value-based
        // casting to a 0-d array, which our kernels (like numpy 2, NEP 50) do not; the broadcast
        // result is the same. Outputs are never 0-d in the broadcast cases.
        std::string shape = t.view().ndim == 0 ? "1" : "";
        for (int i = 0; i < t.view().ndim; ++i) shape += (i ? "," : "") + std::to_string(t.view().shape[i]);
        return file + " " + nv::kernels::dtype_name(t.view().dtype) + " " + shape;
    }

    void record(const std::string& kind, const std::string& op, const std::string& arg, const tensor& out,
                const std::vector<const tensor*>& ins) {
        manifest_ << kind << " " << op << " " << arg << " " << save(out);
        for (auto* t : ins) manifest_ << " " << save(*t);
        manifest_ << "\n";
    }

    fs::path dir_;
    std::ofstream manifest_;
    int next_ = 0;
};

TEST_F(numpy_through_plugin, EveryKernelDtypeAndBroadcastShape) {
    std::string error;
    if (std::system((std::string(k_python) + " -c 'import numpy' >/dev/null 2>&1").c_str()) != 0)
        GTEST_SKIP() << k_python << " with numpy is not available";
    bring_up();
    dir_ = tmp / "numpy";
    fs::create_directories(dir_);
    manifest_.open(dir_ / "manifest.txt");
    unsigned seed = 1;

    // Every binary and unary kernel by its built-in name (numpy's, but "divide" for true_divide).
    // Broadcast pairs: (3,1,5) with (4,1); (2,3) with a 0-d scalar; equal shapes (7,).
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
        {{3, 1, 5}, {4, 1}}, {{2, 3}, {}}, {{7}, {7}}};
    unsigned later_seed = 100000;  // the ufuncs added later draw from their own seeds, so the
                                   // sections below keep the data they were tuned on
    unsigned dtype_seed = 200000;  // and so do the dtypes added later (uint16 and up)
    auto seed_for = [&](cb_dtype d) -> unsigned& { return d >= CB_DTYPE_UINT16 ? dtype_seed : seed; };
    for (int k = 0; k <= int(nv::kernels::binary_op::greater_equal); ++k) {
        auto op = static_cast<nv::kernels::binary_op>(k);
        unsigned& op_seed = op <= nv::kernels::binary_op::maximum || nv::kernels::is_comparison(op) ? seed : later_seed;
        const std::string numpy_name = nv::kernels::op_name(op);
        const std::string name = op == nv::kernels::binary_op::divide ? "divide" : numpy_name;
        for (auto da : all_dtypes)
            for (auto db : all_dtypes)
                for (const auto& [sa, sb] : shapes) {
                    if (&sa != &shapes[0].first && (da != db && da != CB_DTYPE_INT8)) continue;  // keep it lean
                    unsigned& s = std::max(da, db) >= CB_DTYPE_UINT16 ? dtype_seed : op_seed;
                    tensor a = wide_random(da, sa, s++), b = wide_random(db, sb, s++);
                    nv::kernels::op_types types{};
                    shape_t shape;
                    if (nv::kernels::plan_binary(op, a.view(), b.view(), types, shape, error) != CB_OK) continue;
                    if (op == nv::kernels::binary_op::power && !nv::kernels::is_float_dtype(types.compute))
                        for (int64_t i = 0; i < b.size(); ++i)  // numpy refuses negative integer exponents
                            if (kt::get(b, i) < 0) kt::set(b, i, -(kt::get(b, i) + 1));
                    tensor o = run(name.c_str(), {&a, &b}, types.result, dims_of(shape));
                    record("binary", numpy_name.c_str(), "-", o, {&a, &b});
                }
    }
    for (auto d : all_dtypes) {
        tensor a = wide_random(d, {257}, seed_for(d)++);
        for (int k = 0; k <= int(nv::kernels::unary_op::abs); ++k) {
            auto op = static_cast<nv::kernels::unary_op>(k);
            nv::kernels::op_types types{};
            if (nv::kernels::unary_types(op, d, types, error) != CB_OK) continue;
            tensor o = run(nv::kernels::op_name(op), {&a}, types.result, {257});
            record("unary", nv::kernels::op_name(op), "-", o, {&a});
        }
        for (auto to : all_dtypes) {
            if (nv::kernels::is_float_dtype(d) && !nv::kernels::is_float_dtype(to) && to != CB_DTYPE_BOOL) continue;
            tensor o = run("cast", {&a}, to, {257});
            record("cast", "astype", "-", o, {&a});
        }
    }
    using nv::kernels::reduce_op;
    const std::pair<const char*, reduce_op> reductions[] = {{"sum", reduce_op::sum},
                                                            {"mean", reduce_op::mean},
                                                            {"prod", reduce_op::prod},
                                                            {"max", reduce_op::max},
                                                            {"min", reduce_op::min}};
    for (auto d : all_dtypes) {
        const unsigned sd = seed_for(d)++;
        tensor a = wide_random(d, {6, 5, 40}, sd);
        // prod: floats folded into (-2, 2), so no product over- or underflows and a different
        // multiplication order only rounds differently (integers wrap the same in any order).
        tensor tame = wide_random(d, {6, 5, 40}, sd);
        if (nv::kernels::is_float_dtype(d))
            for (int64_t i = 0; i < tame.size(); ++i) kt::set(tame, i, std::fmod(kt::get(tame, i), 2.0));
        for (const auto& [name, op] : reductions) {
            tensor& in = op == reduce_op::prod ? tame : a;
            for (int axis : {CB_REDUCE_ALL_AXES, 0, 1, 2, -1}) {
                cb_dtype rd{};
                shape_t shape;
                ASSERT_EQ(nv::kernels::plan_reduce(op, in.view(), axis, rd, shape, error), CB_OK);
                tensor o = run(name, {&in}, rd, dims_of(shape), {sdk::int64_arg(axis)});
                record("reduce", name, axis == CB_REDUCE_ALL_AXES ? "all" : std::to_string(axis), o, {&in});
            }
        }
    }
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> mm = {
        {{7, 9}, {9, 4}}, {{9}, {9, 4}}, {{7, 9}, {9}}, {{9}, {9}}};
    for (auto da : all_dtypes)
        for (cb_dtype db : {da, cb_dtype{CB_DTYPE_INT8}, cb_dtype{CB_DTYPE_FLOAT32}})
            for (const auto& [sa, sb] : mm) {
                unsigned& s = seed_for(std::max(da, db));
                tensor a = wide_random(da, sa, s++), b = wide_random(db, sb, s++);
                if (nv::kernels::is_float_dtype(nv::kernels::promote(da, db))) {
                    for (int64_t i = 0; i < a.size(); ++i) kt::set(a, i, std::fmod(kt::get(a, i), 8.0));
                    for (int64_t i = 0; i < b.size(); ++i) kt::set(b, i, std::fmod(kt::get(b, i), 8.0));
                }
                cb_dtype rd{};
                shape_t shape;
                ASSERT_EQ(nv::kernels::plan_matmul(a.view(), b.view(), rd, shape, error), CB_OK);
                tensor o = run("matmul", {&a, &b}, rd, dims_of(shape));
                record("matmul", "matmul", "-", o, {&a, &b});
            }
    manifest_.close();
    std::string cmd = std::string(k_python) + " " + CB_NUMPY_CHECK_SCRIPT + " " + dir_.string() + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    int rc = pclose(p);
    std::printf("%s", out.c_str());
    EXPECT_EQ(rc, 0) << out;
}

// fill, arange and random_uniform: values numpy would give (fill, arange) and the CPU engine's
// Philox stream (the same seed must give the same numbers everywhere).
TEST_F(numpy_through_plugin, FillArangeAndRandomMatchTheirDefinitions) {
    std::string error;
    bring_up();
    for (auto d : all_dtypes) {
        tensor o = run("fill", {}, d, {5, 3}, {sdk::int64_arg(7)});
        for (int64_t i = 0; i < o.size(); ++i) EXPECT_EQ(kt::get(o, i), d == CB_DTYPE_BOOL ? 1.0 : 7.0);
        if (d == CB_DTYPE_BOOL) continue;
        tensor r = run("arange", {}, d, {10}, {sdk::int64_arg(3), sdk::int64_arg(2)});
        for (int64_t i = 0; i < r.size(); ++i) EXPECT_EQ(kt::get(r, i), 3.0 + 2.0 * double(i)) << i;
    }
    tensor f = run("arange", {}, CB_DTYPE_FLOAT64, {4}, {sdk::float64_arg(0.5), sdk::float64_arg(0.25)});
    EXPECT_EQ(kt::get(f, 3), 1.25);
    for (cb_dtype d : {cb_dtype{CB_DTYPE_FLOAT32}, cb_dtype{CB_DTYPE_FLOAT64}}) {
        tensor r = run("random_uniform", {}, d, {1000}, {sdk::uint64_arg(42), sdk::uint64_arg(7)});
        tensor expect(d, {1000});
        ASSERT_EQ(nv::kernels::random_uniform(expect.view(), 42, 7, error), CB_OK);
        EXPECT_EQ(0, std::memcmp(r.data(), expect.data(), r.bytes()));
        for (int64_t i = 0; i < r.size(); ++i) {
            EXPECT_GE(kt::get(r, i), 0.0);
            EXPECT_LT(kt::get(r, i), 1.0);
        }
    }
}

}  // namespace
}  // namespace cudabridge::test

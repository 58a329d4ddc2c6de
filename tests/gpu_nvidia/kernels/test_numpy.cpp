// Cross-check against numpy itself: compute a sample of every kernel here, write inputs and
// outputs as raw arrays, and let numpy_check.py recompute them with /usr/bin/python3's numpy.
// Skipped when that interpreter or numpy is missing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "common/kernels/elementwise.hpp"
#include "common/kernels/indexing.hpp"
#include "common/kernels/matmul.hpp"
#include "common/kernels/reduce.hpp"
#include "common/kernels/sort.hpp"
#include "test_util.hpp"

using namespace kt;
namespace fs = std::filesystem;

namespace {

const char* k_python = "/usr/bin/python3";

// Full-range random bits for integers (exercises wrap-around and division edge cases), spread
// floats with a few zeros.
tensor wide_random(cb_dtype d, int ndim, const std::int64_t* shape, unsigned seed) {
    tensor t(d, ndim, shape);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 100.0);
    auto* bytes = static_cast<unsigned char*>(t.data());
    for (std::size_t i = 0; i < t.bytes(); ++i) bytes[i] = static_cast<unsigned char>(rng());
    for (std::int64_t i = 0; i < t.size(); ++i) {
        if (d == CB_DTYPE_BOOL)
            set(t, i, rng() % 2);
        else if (is_float_dtype(d))
            set(t, i, rng() % 17 == 0 ? 0.0 : g(rng));
        else if (rng() % 13 == 0)
            set(t, i, 0);
    }
    return t;
}

struct writer {
    fs::path dir;
    std::ofstream manifest;
    int next = 0;

    std::string save(const tensor& t) {
        std::string name = "a" + std::to_string(next++) + ".bin";
        std::ofstream(dir / name, std::ios::binary)
            .write(static_cast<const char*>(t.data()), static_cast<std::streamsize>(t.bytes()));
        std::string shape = t.view().ndim == 0 ? "-" : "";
        for (int i = 0; i < t.view().ndim; ++i) shape += (i ? "," : "") + std::to_string(t.view().shape[i]);
        return name + " " + dtype_name(t.view().dtype) + " " + shape;
    }
    void record(const std::string& kind, const std::string& op, const std::string& arg, const tensor& out,
                std::initializer_list<const tensor*> ins) {
        manifest << kind << " " << op << " " << arg << " " << save(out);
        for (auto* t : ins) manifest << " " << save(*t);
        manifest << "\n";
    }
};

tensor out_for(cb_dtype d, const shape_t& s) { return tensor(d, s.ndim, s.dims); }

// NaN, the infinities, signed zeros and halves (rint's ties) at the front of a float tensor.
void add_specials(tensor& t) {
    if (!is_float_dtype(t.view().dtype)) return;
    const double v[] = {NAN, INFINITY, -INFINITY, -0.0, 0.5, -2.5, 1.5, 0.0, 1.0, -1.0, 0.25};
    for (std::int64_t i = 0; i < t.size() && i < std::int64_t(std::size(v)); ++i) set(t, i, v[i]);
}

// numpy refuses negative integer exponents (ValueError): keep integer exponents >= 0 for power.
void nonnegative(tensor& t) {
    if (is_float_dtype(t.view().dtype)) return;
    for (std::int64_t i = 0; i < t.size(); ++i)
        if (get(t, i) < 0) set(t, i, -(get(t, i) + 1));
}

}  // namespace

TEST(Numpy, CrossCheck) {
    std::string error;
    if (std::system((std::string(k_python) + " -c 'import numpy' >/dev/null 2>&1").c_str()) != 0)
        GTEST_SKIP() << k_python << " with numpy is not available";
    writer w;
    w.dir = fs::temp_directory_path() / ("cb_nv_numpy_" + std::to_string(::getpid()));
    fs::create_directories(w.dir);
    w.manifest.open(w.dir / "manifest.txt");
    unsigned seed = 1;
    const std::int64_t sa[] = {3, 1, 5}, sb[] = {4, 1};
    unsigned later_seed = 100000;  // the ufuncs added later draw from their own seeds, so the
                                   // sections below keep the data they were tuned on
    unsigned dtype_seed = 200000;  // and so do the dtypes added later (uint16 and up)
    auto seed_for = [&](cb_dtype d) -> unsigned& { return d >= CB_DTYPE_UINT16 ? dtype_seed : seed; };
    for (int i = 0; i <= int(binary_op::greater_equal); ++i) {
        const binary_op op = binary_op(i);
        for (auto da : all_dtypes)
            for (auto db : all_dtypes) {
                unsigned& s = std::max(da, db) >= CB_DTYPE_UINT16             ? dtype_seed
                              : op <= binary_op::maximum || is_comparison(op) ? seed
                                                                              : later_seed;
                tensor a = wide_random(da, 3, sa, s++), b = wide_random(db, 2, sb, s++);
                add_specials(a);
                add_specials(b);
                op_types t{};
                shape_t shape;
                if (plan_binary(op, a.view(), b.view(), t, shape, error) != CB_OK) continue;
                if (op == binary_op::power && !is_float_dtype(t.compute)) nonnegative(b);
                tensor o = out_for(t.result, shape);
                ASSERT_EQ(binary(op, a.view(), b.view(), o.view(), error), CB_OK);
                w.record("binary", op_name(op), "-", o, {&a, &b});
            }
    }
    const std::int64_t s1[] = {257};
    for (auto d : all_dtypes) {
        tensor a = wide_random(d, 1, s1, seed_for(d)++);
        add_specials(a);
        for (int i = 0; i <= int(unary_op::abs); ++i) {
            const unary_op op = unary_op(i);
            op_types t{};
            if (unary_types(op, d, t, error) != CB_OK) continue;
            tensor o(t.result, 1, s1);
            ASSERT_EQ(unary(op, a.view(), o.view(), error), CB_OK) << error;
            w.record("unary", op_name(op), "-", o, {&a});
        }
        for (auto to : all_dtypes) {
            if (is_float_dtype(d) && !is_float_dtype(to) && to != CB_DTYPE_BOOL)
                continue;  // out-of-range is UB in numpy
            tensor o(to, 1, s1);
            ASSERT_EQ(cast(a.view(), o.view(), error), CB_OK);
            w.record("cast", "astype", "-", o, {&a});
        }
    }
    const std::int64_t s3[] = {6, 5, 40};
    const char* rnames[] = {"sum", "mean", "prod", "max", "min"};
    const reduce_op rops[] = {reduce_op::sum, reduce_op::mean, reduce_op::prod, reduce_op::max, reduce_op::min};
    for (auto d : all_dtypes) {
        const unsigned sd = seed_for(d)++;
        tensor a = wide_random(d, 3, s3, sd);
        // prod: floats folded into (-2, 2), so no product over- or underflows and a different
        // multiplication order only rounds differently (integers wrap the same in any order).
        tensor tame = wide_random(d, 3, s3, sd);
        if (is_float_dtype(d))
            for (std::int64_t i = 0; i < tame.size(); ++i) set(tame, i, std::fmod(get(tame, i), 2.0));
        for (int r = 0; r < 5; ++r) {
            tensor& in = rops[r] == reduce_op::prod ? tame : a;
            for (int axis : {k_all_axes, 0, 1, 2, -1}) {
                cb_dtype rd{};
                shape_t shape;
                ASSERT_EQ(plan_reduce(rops[r], in.view(), axis, rd, shape, error), CB_OK);
                tensor o = out_for(rd, shape);
                ASSERT_EQ(reduce(rops[r], in.view(), axis, o.view(), error), CB_OK);
                w.record("reduce", rnames[r], axis == k_all_axes ? "all" : std::to_string(axis), o, {&in});
            }
        }
    }
    const std::int64_t m1[] = {7, 9}, m2[] = {9, 4}, v9[] = {9};
    for (auto da : all_dtypes)
        for (cb_dtype db : {da, cb_dtype{CB_DTYPE_INT8}, cb_dtype{CB_DTYPE_FLOAT32}}) {
            for (auto [sa2, na, sb2, nb] : {std::tuple{m1, 2, m2, 2}, std::tuple{v9, 1, m2, 2},
                                            std::tuple{m1, 2, v9, 1}, std::tuple{v9, 1, v9, 1}}) {
                unsigned& s = seed_for(std::max(da, db));
                tensor a = wide_random(da, na, sa2, s++), b = wide_random(db, nb, sb2, s++);
                if (is_float_dtype(promote(da, db))) {  // keep float products well-conditioned
                    for (std::int64_t i = 0; i < a.size(); ++i) set(a, i, std::fmod(get(a, i), 8.0));
                    for (std::int64_t i = 0; i < b.size(); ++i) set(b, i, std::fmod(get(b, i), 8.0));
                }
                cb_dtype rd{};
                shape_t shape;
                ASSERT_EQ(plan_matmul(a.view(), b.view(), rd, shape, error), CB_OK);
                tensor o = out_for(rd, shape);
                ASSERT_EQ(matmul(a.view(), b.view(), o.view(), error), CB_OK);
                w.record("matmul", "matmul", "-", o, {&a, &b});
            }
        }
    // Indexing and sorting: sort / stable argsort along the last axis (NaN, infinities and signed
    // zeros among repeated values), take and put with wrapped indices (negative and past the end),
    // copyto with a mask.
    const std::int64_t s4[] = {5, 33}, si[] = {7, 3}, sm[] = {33};
    for (auto d : all_dtypes) {
        tensor a = wide_random(d, 2, s4, seed_for(d)++);
        add_specials(a);
        for (std::int64_t i = 40; i < a.size(); i += 7) set(a, i, get(a, i - 20));  // ties
        tensor so(d, 2, s4), ao(CB_DTYPE_INT64, 2, s4);
        ASSERT_EQ(sort(a.view(), so.view(), error), CB_OK) << error;
        ASSERT_EQ(argsort(a.view(), ao.view(), error), CB_OK) << error;
        w.record("sort", "sort", "-", so, {&a});
        w.record("sort", "argsort", "-", ao, {&a});
        const std::int64_t s5[] = {2, 1500};  // rows long enough for the radix sort
        tensor long_rows = wide_random(d, 2, s5, seed_for(d)++);
        add_specials(long_rows);
        for (std::int64_t i = 1500; i < long_rows.size(); i += 5) set(long_rows, i, get(long_rows, i - 1500));
        if (is_float_dtype(d)) set(long_rows, 1700, -0.0), set(long_rows, 1701, NAN), set(long_rows, 1702, -NAN);
        tensor lso(d, 2, s5), lao(CB_DTYPE_INT64, 2, s5);
        ASSERT_EQ(sort(long_rows.view(), lso.view(), error), CB_OK) << error;
        ASSERT_EQ(argsort(long_rows.view(), lao.view(), error), CB_OK) << error;
        w.record("sort", "sort", "-", lso, {&long_rows});
        w.record("sort", "argsort", "-", lao, {&long_rows});
        tensor idx = wide_random(CB_DTYPE_INT64, 2, si, seed_for(d)++);
        for (std::int64_t i = 0; i < idx.size(); ++i) set(idx, i, std::fmod(get(idx, i), 400.0));
        tensor to(d, 2, si);
        ASSERT_EQ(take(a.view(), idx.view(), to.view(), error), CB_OK) << error;
        w.record("take", "take", "-", to, {&a, &idx});
        tensor vals = wide_random(d, 2, si, seed_for(d)++), before = wide_random(d, 2, s4, seed_for(d)++), po(d, 2, s4);
        std::memcpy(po.data(), before.data(), before.bytes());
        ASSERT_EQ(put(vals.view(), idx.view(), po.view(), error), CB_OK) << error;
        w.record("put", "put", "-", po, {&before, &vals, &idx});
        tensor mask = wide_random(CB_DTYPE_BOOL, 1, sm, seed_for(d)++), co(d, 2, s4);
        std::memcpy(co.data(), before.data(), before.bytes());
        ASSERT_EQ(copyto(a.view(), mask.view(), co.view(), error), CB_OK) << error;
        w.record("copyto", "copyto", "-", co, {&before, &a, &mask});
    }
    w.manifest.close();
    std::string cmd = std::string(k_python) + " " + CB_NUMPY_CHECK_SCRIPT + " " + w.dir.string() + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    int rc = pclose(p);
    std::printf("%s", out.c_str());
    EXPECT_EQ(rc, 0) << out;
    if (rc == 0) fs::remove_all(w.dir);
}

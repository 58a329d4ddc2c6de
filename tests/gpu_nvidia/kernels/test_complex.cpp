// complex64 and complex128 in the CPU engine: the type rules (numpy 1.24's promotion, its
// refusals), values against std::complex references, and a cross-check of every supported op
// against numpy itself (numpy_check.py), as test_numpy.cpp does for the real dtypes.
#include <gtest/gtest.h>

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <unistd.h>

#include "common/kernels/elementwise.hpp"
#include "common/kernels/indexing.hpp"
#include "common/kernels/matmul.hpp"
#include "common/kernels/reduce.hpp"
#include "common/kernels/sort.hpp"
#include "test_util.hpp"

using namespace kt;
namespace fs = std::filesystem;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

namespace {

const cb_dtype complex_dtypes[] = {CB_DTYPE_COMPLEX64, CB_DTYPE_COMPLEX128};

// Parts drawn from N(0, scale), no zeros (numpy's and C's complex division by zero give different
// inf/NaN mixes); real dtypes as test_util's random_tensor.
tensor complex_random(cb_dtype d, std::initializer_list<std::int64_t> shape, unsigned seed, double scale = 3.0) {
    if (!is_complex_dtype(d)) return random_tensor(d, shape, seed);
    tensor t(d, shape);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, scale);
    auto part = [&] {
        double v = g(rng);
        return v == 0 ? 0.5 : v;
    };
    for (std::int64_t i = 0; i < t.size(); ++i) {
        const double re = part(), im = part();
        if (d == CB_DTYPE_COMPLEX64)
            t.as<c64>()[i] = c64(float(re), float(im));
        else
            t.as<c128>()[i] = c128(re, im);
    }
    return t;
}

}  // namespace

TEST(Complex, PromotionIsNumpys) {
    EXPECT_EQ(promote(CB_DTYPE_COMPLEX64, CB_DTYPE_FLOAT32), CB_DTYPE_COMPLEX64);
    EXPECT_EQ(promote(CB_DTYPE_COMPLEX64, CB_DTYPE_FLOAT16), CB_DTYPE_COMPLEX64);
    EXPECT_EQ(promote(CB_DTYPE_COMPLEX64, CB_DTYPE_INT16), CB_DTYPE_COMPLEX64);
    EXPECT_EQ(promote(CB_DTYPE_COMPLEX64, CB_DTYPE_BOOL), CB_DTYPE_COMPLEX64);
    EXPECT_EQ(promote(CB_DTYPE_COMPLEX64, CB_DTYPE_FLOAT64), CB_DTYPE_COMPLEX128);
    EXPECT_EQ(promote(CB_DTYPE_COMPLEX64, CB_DTYPE_INT32), CB_DTYPE_COMPLEX128);
    EXPECT_EQ(promote(CB_DTYPE_UINT64, CB_DTYPE_COMPLEX64), CB_DTYPE_COMPLEX128);
    EXPECT_EQ(promote(CB_DTYPE_COMPLEX128, CB_DTYPE_COMPLEX64), CB_DTYPE_COMPLEX128);
    EXPECT_EQ(result_dtype(binary_op::divide, CB_DTYPE_COMPLEX64, CB_DTYPE_INT8), CB_DTYPE_COMPLEX64);
    EXPECT_EQ(result_dtype(binary_op::equal, CB_DTYPE_COMPLEX128, CB_DTYPE_FLOAT32), CB_DTYPE_BOOL);
    EXPECT_EQ(reduce_result_dtype(reduce_op::sum, CB_DTYPE_COMPLEX64), CB_DTYPE_COMPLEX64);
    EXPECT_EQ(reduce_result_dtype(reduce_op::mean, CB_DTYPE_COMPLEX128), CB_DTYPE_COMPLEX128);
    std::string error;
    op_types t{};
    ASSERT_EQ(unary_types(unary_op::abs, CB_DTYPE_COMPLEX64, t, error), CB_OK);
    EXPECT_EQ(t.result, CB_DTYPE_FLOAT32);  // |z| is real
    ASSERT_EQ(unary_types(unary_op::abs, CB_DTYPE_COMPLEX128, t, error), CB_OK);
    EXPECT_EQ(t.result, CB_DTYPE_FLOAT64);
}

// What numpy refuses for complex (floor, floor_divide, bitwise ops, ...) is refused with numpy's
// message; the orderings numpy defines lexicographically are refused as not on the device.
TEST(Complex, RefusalsSayWhy) {
    std::string error;
    op_types t{};
    for (binary_op op : {binary_op::floor_divide, binary_op::remainder, binary_op::fmod, binary_op::arctan2,
                         binary_op::bitwise_and, binary_op::left_shift, binary_op::logaddexp}) {
        EXPECT_EQ(binary_types(op, CB_DTYPE_COMPLEX64, CB_DTYPE_FLOAT32, t, error), CB_ERR_UNSUPPORTED) << op_name(op);
        EXPECT_NE(error.find("not supported for the input types"), std::string::npos) << error;
    }
    for (binary_op op : {binary_op::less, binary_op::maximum, binary_op::fmin}) {
        EXPECT_EQ(binary_types(op, CB_DTYPE_COMPLEX128, CB_DTYPE_INT8, t, error), CB_ERR_UNSUPPORTED);
        EXPECT_NE(error.find("lexicographically"), std::string::npos) << error;
    }
    for (unary_op op : {unary_op::floor, unary_op::ceil, unary_op::trunc, unary_op::invert, unary_op::signbit}) {
        EXPECT_EQ(unary_types(op, CB_DTYPE_COMPLEX64, t, error), CB_ERR_UNSUPPORTED) << op_name(op);
        EXPECT_NE(error.find("not supported for the input types"), std::string::npos) << error;
    }
    tensor a = complex_random(CB_DTYPE_COMPLEX64, {4}, 1), o(CB_DTYPE_COMPLEX64, {}), s(CB_DTYPE_COMPLEX64, {4});
    EXPECT_EQ(reduce(reduce_op::max, a.view(), k_all_axes, o.view(), error), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(sort(a.view(), s.view(), error), CB_ERR_UNSUPPORTED);
}

TEST(Complex, ArithmeticAgainstStdComplex) {
    std::string error;
    tensor a = complex_random(CB_DTYPE_COMPLEX128, {3, 1}, 2), b = complex_random(CB_DTYPE_COMPLEX128, {4}, 3);
    const binary_op ops[] = {binary_op::add, binary_op::subtract, binary_op::multiply, binary_op::divide,
                             binary_op::power};
    for (binary_op op : ops) {
        tensor o(CB_DTYPE_COMPLEX128, {3, 4});
        ASSERT_EQ(binary(op, a.view(), b.view(), o.view(), error), CB_OK) << error;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 4; ++j) {
                const c128 x = a.as<c128>()[i], y = b.as<c128>()[j];
                const c128 want = op == binary_op::add        ? x + y
                                  : op == binary_op::subtract ? x - y
                                  : op == binary_op::multiply ? x * y
                                  : op == binary_op::divide   ? x / y
                                                              : std::pow(x, y);
                EXPECT_EQ(o.as<c128>()[i * 4 + j], want) << op_name(op);
            }
    }
    // complex64 with float64 is complex128; |z| is float32 for complex64.
    tensor f(CB_DTYPE_FLOAT64, {}), c = complex_random(CB_DTYPE_COMPLEX64, {5}, 4), o(CB_DTYPE_COMPLEX128, {5});
    f.as<double>()[0] = 0.1;
    ASSERT_EQ(binary(binary_op::multiply, c.view(), f.view(), o.view(), error), CB_OK) << error;
    for (int i = 0; i < 5; ++i) EXPECT_EQ(o.as<c128>()[i], c128(c.as<c64>()[i]) * 0.1);
    tensor m(CB_DTYPE_FLOAT32, {5});
    ASSERT_EQ(unary(unary_op::abs, c.view(), m.view(), error), CB_OK) << error;
    for (int i = 0; i < 5; ++i) EXPECT_EQ(m.as<float>()[i], std::abs(c.as<c64>()[i]));
}

// Where numpy's complex loops are not C++'s operators: products by the plain formula (no
// recovery of infinities), reciprocal by Smith's quotient, and power's special cases for a zero
// base or a zero exponent.
TEST(Complex, ProductReciprocalAndPowerSpecialCasesAreNumpys) {
    std::string error;
    const double inf = INFINITY;
    tensor a(CB_DTYPE_COMPLEX128, {5}), b(CB_DTYPE_COMPLEX128, {5}), o(CB_DTYPE_COMPLEX128, {5});
    const c128 as[] = {{inf, inf}, {0, 0}, {0, 0}, {0, 0}, {2, 3}};
    const c128 bs[] = {{2, 0}, {2, 0}, {-1, 0}, {0, 1}, {0, 0}};
    for (int i = 0; i < 5; ++i) a.as<c128>()[i] = as[i], b.as<c128>()[i] = bs[i];

    ASSERT_EQ(binary(binary_op::multiply, a.view(), b.view(), o.view(), error), CB_OK) << error;
    EXPECT_TRUE(std::isnan(o.as<c128>()[0].real()) && std::isnan(o.as<c128>()[0].imag()))
        << "numpy: inf - inf * 0 and inf * 0 + inf, where C++ recovers an infinity";

    ASSERT_EQ(binary(binary_op::power, a.view(), b.view(), o.view(), error), CB_OK) << error;
    EXPECT_EQ(o.as<c128>()[1], c128(0, 0)) << "0 ** 2";
    EXPECT_TRUE(std::isnan(o.as<c128>()[2].real()) && std::isnan(o.as<c128>()[2].imag())) << "0 ** -1";
    EXPECT_TRUE(std::isnan(o.as<c128>()[3].real()) && std::isnan(o.as<c128>()[3].imag())) << "0 ** 1j";
    EXPECT_EQ(o.as<c128>()[4], c128(1, 0)) << "z ** 0";

    ASSERT_EQ(unary(unary_op::reciprocal, a.view(), o.view(), error), CB_OK) << error;
    EXPECT_TRUE(std::isnan(o.as<c128>()[0].real()) && std::isnan(o.as<c128>()[0].imag())) << "1 / (inf + inf j)";
    EXPECT_TRUE(std::isnan(o.as<c128>()[1].real()) && std::isnan(o.as<c128>()[1].imag())) << "1 / 0j";
    EXPECT_EQ(o.as<c128>()[4], c128(2.0 / 13, -3.0 / 13));
}

TEST(Complex, ReductionsMatmulCastsAndIndexing) {
    std::string error;
    tensor a = complex_random(CB_DTYPE_COMPLEX64, {1000}, 5);
    c128 exact = 0;
    for (int i = 0; i < 1000; ++i) exact += c128(a.as<c64>()[i]);
    tensor s(CB_DTYPE_COMPLEX64, {});
    ASSERT_EQ(reduce(reduce_op::sum, a.view(), k_all_axes, s.view(), error), CB_OK) << error;
    EXPECT_EQ(s.as<c64>()[0], c64(exact));  // accumulated in complex128, rounded once
    ASSERT_EQ(reduce(reduce_op::mean, a.view(), k_all_axes, s.view(), error), CB_OK) << error;
    EXPECT_EQ(s.as<c64>()[0], c64(exact / 1000.0));
    tensor x = complex_random(CB_DTYPE_COMPLEX128, {2, 3}, 6), y = complex_random(CB_DTYPE_COMPLEX128, {3, 2}, 7);
    tensor z(CB_DTYPE_COMPLEX128, {2, 2});
    ASSERT_EQ(matmul(x.view(), y.view(), z.view(), error), CB_OK) << error;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            c128 want = 0;
            for (int k = 0; k < 3; ++k) want += x.as<c128>()[i * 3 + k] * y.as<c128>()[k * 2 + j];
            EXPECT_NEAR(std::abs(z.as<c128>()[i * 2 + j] - want), 0.0, 1e-12);
        }
    tensor r(CB_DTYPE_FLOAT32, {2, 3}), back(CB_DTYPE_COMPLEX64, {2, 3}), flags(CB_DTYPE_BOOL, {2, 3});
    ASSERT_EQ(cast(x.view(), r.view(), error), CB_OK);  // the real part, as numpy's astype
    ASSERT_EQ(cast(r.view(), back.view(), error), CB_OK);
    for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(r.as<float>()[i], float(x.as<c128>()[i].real()));
        EXPECT_EQ(back.as<c64>()[i], c64(r.as<float>()[i], 0.0f));
    }
    x.as<c128>()[2] = c128(0.0, 1.0);  // nonzero: only the imaginary part
    x.as<c128>()[3] = c128(0.0, 0.0);
    ASSERT_EQ(cast(x.view(), flags.view(), error), CB_OK);
    EXPECT_TRUE(flags.as<bool>()[2]);
    EXPECT_FALSE(flags.as<bool>()[3]);
    tensor idx(CB_DTYPE_INT64, {3}), taken(CB_DTYPE_COMPLEX128, {3});
    const std::int64_t iv[] = {5, -6, 2};
    std::memcpy(idx.data(), iv, sizeof iv);
    ASSERT_EQ(take(x.view(), idx.view(), taken.view(), error), CB_OK) << error;  // 16-byte elements
    EXPECT_EQ(taken.as<c128>()[0], x.as<c128>()[5]);
    EXPECT_EQ(taken.as<c128>()[1], x.as<c128>()[0]);
    EXPECT_EQ(taken.as<c128>()[2], x.as<c128>()[2]);
}

// Every supported complex op against numpy 1.24 (numpy_check.py): binary ops with every dtype in
// both orders, the unary functions, casts to and from every dtype, sum/prod/mean over each axis,
// matmul with real and complex operands.
TEST(Complex, CrossCheckWithNumpy) {
    std::string error;
    if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
    const fs::path dir = fs::temp_directory_path() / ("cb_nv_complex_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream manifest(dir / "manifest.txt");
    int next = 0;
    auto save = [&](const tensor& t) {
        const std::string name = "a" + std::to_string(next++) + ".bin";
        std::ofstream(dir / name, std::ios::binary)
            .write(static_cast<const char*>(t.data()), static_cast<std::streamsize>(t.bytes()));
        std::string shape = t.view().ndim == 0 ? "-" : "";
        for (int i = 0; i < t.view().ndim; ++i) shape += (i ? "," : "") + std::to_string(t.view().shape[i]);
        return name + " " + dtype_name(t.view().dtype) + " " + shape;
    };
    auto record = [&](const char* kind, const char* op, const std::string& arg, const tensor& out,
                      std::initializer_list<const tensor*> ins) {
        manifest << kind << " " << op << " " << arg << " " << save(out);
        for (auto* t : ins) manifest << " " << save(*t);
        manifest << "\n";
    };
    unsigned seed = 300000;
    std::vector<cb_dtype> every(std::begin(all_dtypes), std::end(all_dtypes));
    every.insert(every.end(), std::begin(complex_dtypes), std::end(complex_dtypes));
    const binary_op bops[] = {binary_op::add,   binary_op::subtract, binary_op::multiply,  binary_op::divide,
                              binary_op::power, binary_op::equal,    binary_op::not_equal, binary_op::logical_and};
    for (binary_op op : bops)
        for (cb_dtype c : complex_dtypes)
            for (cb_dtype other : every)
                for (bool swap : {false, true}) {
                    tensor x = complex_random(c, {3, 1, 4}, seed++, op == binary_op::power ? 0.7 : 3.0);
                    tensor y = complex_random(other, {5, 1}, seed++, op == binary_op::power ? 0.7 : 3.0);
                    if (op == binary_op::power && !is_complex_dtype(other))  // small real exponents, no 0 base
                        for (std::int64_t i = 0; i < y.size(); ++i) {
                            const double v = std::fmod(get(y, i), 3.0);
                            set(y, i, v == 0 ? 1.0 : v);
                        }
                    const tensor& a = swap ? y : x;
                    const tensor& b = swap ? x : y;
                    op_types t{};
                    shape_t shape;
                    ASSERT_EQ(plan_binary(op, a.view(), b.view(), t, shape, error), CB_OK) << error;
                    tensor o(t.result, shape.ndim, shape.dims);
                    ASSERT_EQ(binary(op, a.view(), b.view(), o.view(), error), CB_OK) << error;
                    record("binary", op_name(op), "-", o, {&a, &b});
                }
    const unary_op uops[] = {unary_op::negate, unary_op::abs,      unary_op::square,      unary_op::reciprocal,
                             unary_op::exp,    unary_op::log,      unary_op::sqrt,        unary_op::isnan,
                             unary_op::isinf,  unary_op::isfinite, unary_op::logical_not, unary_op::log10,
                             unary_op::sin,    unary_op::cos,      unary_op::tan,         unary_op::arcsin,
                             unary_op::arccos, unary_op::arctan,   unary_op::sinh,        unary_op::cosh,
                             unary_op::tanh,   unary_op::arcsinh,  unary_op::arccosh,     unary_op::arctanh};
    for (cb_dtype c : complex_dtypes) {
        tensor x = complex_random(c, {37}, seed++);
        if (c == CB_DTYPE_COMPLEX64)
            x.as<c64>()[3] = c64(NAN, 1.0f), x.as<c64>()[4] = c64(INFINITY, -2.0f), x.as<c64>()[5] = c64(0.0f, 0.0f);
        else
            x.as<c128>()[3] = c128(1.0, NAN), x.as<c128>()[4] = c128(-1.0, -INFINITY), x.as<c128>()[5] = c128(0, 0);
        for (unary_op op : uops) {
            op_types t{};
            ASSERT_EQ(unary_types(op, c, t, error), CB_OK) << error;
            if (op == unary_op::log || op == unary_op::log10) continue;  // log(0): C and numpy differ
            tensor o(t.result, {37});
            ASSERT_EQ(unary(op, x.view(), o.view(), error), CB_OK) << error;
            record("unary", op_name(op), "-", o, {&x});
        }
        tensor finite = complex_random(c, {37}, seed++);
        for (unary_op op : {unary_op::log, unary_op::log10}) {
            tensor o(c, {37});
            ASSERT_EQ(unary(op, finite.view(), o.view(), error), CB_OK) << error;
            record("unary", op_name(op), "-", o, {&finite});
        }
        for (cb_dtype to : every) {  // complex -> every dtype, every dtype -> complex
            tensor o(to, {37});
            ASSERT_EQ(cast(finite.view(), o.view(), error), CB_OK);
            record("cast", "astype", "-", o, {&finite});
            tensor from = complex_random(to, {37}, seed++);
            tensor back(c, {37});
            ASSERT_EQ(cast(from.view(), back.view(), error), CB_OK);
            record("cast", "astype", "-", back, {&from});
        }
        tensor r = complex_random(c, {6, 5, 8}, seed++, 0.6);  // products stay finite
        for (reduce_op op : {reduce_op::sum, reduce_op::mean, reduce_op::prod})
            for (int axis : {k_all_axes, 0, 1, 2}) {
                cb_dtype rd{};
                shape_t shape;
                ASSERT_EQ(plan_reduce(op, r.view(), axis, rd, shape, error), CB_OK) << error;
                tensor o(rd, shape.ndim, shape.dims);
                ASSERT_EQ(reduce(op, r.view(), axis, o.view(), error), CB_OK) << error;
                const char* name = op == reduce_op::sum ? "sum" : op == reduce_op::mean ? "mean" : "prod";
                record("reduce", name, axis == k_all_axes ? "all" : std::to_string(axis), o, {&r});
            }
        for (cb_dtype other : {c, cb_dtype{CB_DTYPE_FLOAT32}, cb_dtype{CB_DTYPE_INT8}}) {
            tensor m1 = complex_random(c, {7, 9}, seed++), m2 = complex_random(other, {9, 4}, seed++);
            cb_dtype rd{};
            shape_t shape;
            ASSERT_EQ(plan_matmul(m1.view(), m2.view(), rd, shape, error), CB_OK) << error;
            tensor o(rd, shape.ndim, shape.dims);
            ASSERT_EQ(matmul(m1.view(), m2.view(), o.view(), error), CB_OK) << error;
            record("matmul", "matmul", "-", o, {&m1, &m2});
        }
    }
    manifest.close();
    const std::string cmd = std::string("/usr/bin/python3 ") + CB_NUMPY_CHECK_SCRIPT + " " + dir.string() + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    const int rc = pclose(p);
    std::printf("%s", out.c_str());
    EXPECT_EQ(rc, 0) << out;
    if (rc == 0) fs::remove_all(dir);
}

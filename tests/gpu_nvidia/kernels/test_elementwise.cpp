// Elementwise kernels against naive references written here (doubles + explicit wrap-around),
// for every op x dtype x a set of broadcast shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "common/kernels/elementwise.hpp"
#include "test_util.hpp"

using namespace kt;

namespace {

using shape_v = std::vector<std::int64_t>;

tensor make(cb_dtype d, const shape_v& s) { return tensor(d, static_cast<int>(s.size()), s.data()); }

// Flat index into a contiguous operand of shape `in` for output multi-index `idx` (right-aligned).
std::int64_t src_index(const shape_v& out, const std::vector<std::int64_t>& idx, const shape_v& in) {
    std::int64_t flat = 0, stride = 1;
    for (int d = static_cast<int>(in.size()) - 1; d >= 0; --d) {
        std::int64_t od = static_cast<std::int64_t>(out.size() - in.size()) + d;
        std::int64_t i = in[d] == 1 ? 0 : idx[od];
        flat += i * stride;
        stride *= in[d];
    }
    return flat;
}

shape_v bshape(const shape_v& a, const shape_v& b) {
    shape_v r(std::max(a.size(), b.size()));
    for (std::size_t i = 0; i < r.size(); ++i) {
        std::int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
        std::int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
        r[r.size() - 1 - i] = da == 1 ? db : da;
    }
    return r;
}

bool is_float(cb_dtype d) { return is_float_dtype(d); }

// The reference value rounded to the result dtype (float32 and float16 results are rounded once).
double rounded(cb_dtype d, double v) {
    if (d == CB_DTYPE_FLOAT32) return static_cast<float>(v);
    if (d == CB_DTYPE_FLOAT16) return static_cast<double>(static_cast<float16>(v));
    return v;
}

double ref_binary(binary_op op, cb_dtype cd, double a, double b) {
    switch (op) {
    case binary_op::add:
        return wrap_to(cd, (long double)a + b);
    case binary_op::subtract:
        return wrap_to(cd, (long double)a - b);
    case binary_op::multiply:
        return wrap_to(cd, (long double)a * b);
    case binary_op::divide:
        return a / b;
    case binary_op::floor_divide:
        if (is_float(cd)) return b == 0 ? a / b : std::floor(a / b);
        return b == 0 ? 0 : wrap_to(cd, std::floor((long double)a / b));
    case binary_op::minimum:
        return a < b ? a : b;
    case binary_op::maximum:
        return a > b ? a : b;
    case binary_op::equal:
        return a == b;
    case binary_op::not_equal:
        return a != b;
    case binary_op::less:
        return a < b;
    case binary_op::less_equal:
        return a <= b;
    case binary_op::greater:
        return a > b;
    case binary_op::greater_equal:
        return a >= b;
    default:  // the other ops are checked against numpy itself (test_numpy.cpp)
        break;
    }
    return 0;
}

void expect_value(double got, double want, cb_dtype d, const std::string& where) {
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << where;
    } else if (std::isinf(want) || !is_float(d)) {
        EXPECT_EQ(got, want) << where;
    } else {
        double tol = (d == CB_DTYPE_FLOAT16   ? 1e-3
                      : d == CB_DTYPE_FLOAT32 ? 1e-6
                                              : 1e-14) *
                     std::max(1.0, std::fabs(want));
        EXPECT_NEAR(got, want, tol) << where;
    }
}

const binary_op all_binary[] = {binary_op::add,          binary_op::subtract, binary_op::multiply,   binary_op::divide,
                                binary_op::floor_divide, binary_op::minimum,  binary_op::maximum,    binary_op::equal,
                                binary_op::not_equal,    binary_op::less,     binary_op::less_equal, binary_op::greater,
                                binary_op::greater_equal};

const std::pair<shape_v, shape_v> shapes[] = {
    {{2, 3, 4}, {2, 3, 4}}, {{3, 1}, {1, 4}}, {{5}, {}},          {{}, {6}},           {{2, 1, 3}, {4, 1}},
    {{0, 3}, {3}},          {{1}, {7}},       {{70000}, {70000}}, {{300, 257}, {257}}, {{257, 1}, {257, 300}}};

void check_binary(binary_op op, cb_dtype da, cb_dtype db, const shape_v& sa, const shape_v& sb, unsigned seed,
                  engine& eng) {
    std::string error;
    std::string where = std::string(op_name(op)) + " " + dtype_name(da) + shape_string(int(sa.size()), sa.data()) +
                        " " + dtype_name(db) + shape_string(int(sb.size()), sb.data());
    tensor a = make(da, sa), b = make(db, sb);
    tensor ra = random_tensor(da, {a.size()}, seed), rb = random_tensor(db, {b.size()}, seed + 1);
    std::memcpy(a.data(), ra.data(), a.bytes());
    std::memcpy(b.data(), rb.data(), b.bytes());
    cb_dtype rd = result_dtype(op, da, db);
    if (rd < 0) {
        tensor out = make(CB_DTYPE_BOOL, bshape(sa, sb));
        EXPECT_EQ(binary(op, a.view(), b.view(), out.view(), error, eng), CB_ERR_UNSUPPORTED) << where;
        return;
    }
    op_types types{};
    ASSERT_EQ(binary_types(op, da, db, types, error), CB_OK);
    shape_v so = bshape(sa, sb);
    tensor out = make(rd, so);
    cb_status s = binary(op, a.view(), b.view(), out.view(), error, eng);
    ASSERT_EQ(s, CB_OK) << where << ": " << error;
    std::vector<std::int64_t> idx(so.size(), 0);
    for (std::int64_t i = 0; i < out.size(); ++i) {
        std::int64_t rem = i;
        for (int d = int(so.size()) - 1; d >= 0; --d) {
            idx[d] = rem % so[d];
            rem /= so[d];
        }
        double x = get(a, src_index(so, idx, sa)), y = get(b, src_index(so, idx, sb));
        double want = ref_binary(op, types.compute, x, y);
        want = rounded(rd, want);
        expect_value(get(out, i), want, rd, where + " at " + std::to_string(i));
        if (::testing::Test::HasFailure()) return;
    }
}

}  // namespace

TEST(Elementwise, EveryOpDtypeAndBroadcastShape) {
    engine eng(3);
    unsigned seed = 1;
    for (auto op : all_binary)
        for (auto d : all_dtypes)
            for (auto& [sa, sb] : shapes) check_binary(op, d, d, sa, sb, seed++, eng);
}

TEST(Elementwise, MixedDtypesPromote) {
    engine eng(2);
    const binary_op ops[] = {binary_op::add,     binary_op::multiply, binary_op::divide, binary_op::floor_divide,
                             binary_op::maximum, binary_op::less,     binary_op::equal};
    unsigned seed = 100;
    for (auto op : ops)
        for (auto da : all_dtypes)
            for (auto db : all_dtypes) check_binary(op, da, db, {3, 1}, {4}, seed++, eng);
}

TEST(Elementwise, IntegerEdgeCasesMatchNumpy) {
    std::string error;
    // numpy 1.24: [-128, 7, -7, 5] // [-1, 0, 2, -2] (int8) == [-128, 0, -4, -3]
    tensor a(CB_DTYPE_INT8, {4}), b(CB_DTYPE_INT8, {4}), o(CB_DTYPE_INT8, {4});
    const std::int8_t av[] = {-128, 7, -7, 5}, bv[] = {-1, 0, 2, -2};
    std::memcpy(a.data(), av, 4);
    std::memcpy(b.data(), bv, 4);
    ASSERT_EQ(binary(binary_op::floor_divide, a.view(), b.view(), o.view(), error), CB_OK);
    EXPECT_EQ(o.as<std::int8_t>()[0], -128);
    EXPECT_EQ(o.as<std::int8_t>()[1], 0);
    EXPECT_EQ(o.as<std::int8_t>()[2], -4);
    EXPECT_EQ(o.as<std::int8_t>()[3], -3);
    ASSERT_EQ(binary(binary_op::add, a.view(), a.view(), o.view(), error), CB_OK);  // -128 + -128 wraps to 0
    EXPECT_EQ(o.as<std::int8_t>()[0], 0);
    // int32 overflow wraps; true division by zero gives inf / nan.
    tensor i(CB_DTYPE_INT32, {2}), z(CB_DTYPE_INT32, {2}), r(CB_DTYPE_INT32, {2}), f(CB_DTYPE_FLOAT64, {2});
    i.as<std::int32_t>()[0] = std::numeric_limits<std::int32_t>::max();
    i.as<std::int32_t>()[1] = 0;
    z.as<std::int32_t>()[0] = 1;
    z.as<std::int32_t>()[1] = 0;
    ASSERT_EQ(binary(binary_op::add, i.view(), z.view(), r.view(), error), CB_OK);
    EXPECT_EQ(r.as<std::int32_t>()[0], std::numeric_limits<std::int32_t>::min());
    ASSERT_EQ(binary(binary_op::divide, z.view(), i.view(), f.view(), error), CB_OK);
    EXPECT_TRUE(std::isnan(f.as<double>()[1]));  // 0/0
    // float floor_divide: [1,-1,0,5.5,-5.5] // [0,0,0,-2,2] == [inf,-inf,nan,-3,-3]
    tensor x(CB_DTYPE_FLOAT64, {5}), y(CB_DTYPE_FLOAT64, {5}), q(CB_DTYPE_FLOAT64, {5});
    const double xv[] = {1, -1, 0, 5.5, -5.5}, yv[] = {0, 0, 0, -2, 2};
    std::memcpy(x.data(), xv, sizeof xv);
    std::memcpy(y.data(), yv, sizeof yv);
    ASSERT_EQ(binary(binary_op::floor_divide, x.view(), y.view(), q.view(), error), CB_OK);
    EXPECT_EQ(q.as<double>()[0], INFINITY);
    EXPECT_EQ(q.as<double>()[1], -INFINITY);
    EXPECT_TRUE(std::isnan(q.as<double>()[2]));
    EXPECT_EQ(q.as<double>()[3], -3);
    EXPECT_EQ(q.as<double>()[4], -3);
}

TEST(Elementwise, NanPropagatesThroughMinimumMaximum) {
    std::string error;
    tensor a(CB_DTYPE_FLOAT32, {2}), b(CB_DTYPE_FLOAT32, {2}), o(CB_DTYPE_FLOAT32, {2});
    a.as<float>()[0] = NAN;
    a.as<float>()[1] = 1;
    b.as<float>()[0] = 1;
    b.as<float>()[1] = NAN;
    for (auto op : {binary_op::minimum, binary_op::maximum}) {
        ASSERT_EQ(binary(op, a.view(), b.view(), o.view(), error), CB_OK);
        EXPECT_TRUE(std::isnan(o.as<float>()[0]));
        EXPECT_TRUE(std::isnan(o.as<float>()[1]));
    }
}

TEST(Elementwise, BroadcastErrorMatchesNumpy) {
    std::string error;
    tensor a(CB_DTYPE_FLOAT64, {2, 3}), b(CB_DTYPE_FLOAT64, {4}), o(CB_DTYPE_FLOAT64, {2, 3});
    cb_status s = binary(binary_op::add, a.view(), b.view(), o.view(), error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error, "operands could not be broadcast together with shapes (2,3) (4,)");
    tensor wrong(CB_DTYPE_FLOAT32, {2, 3});
    s = binary(binary_op::add, a.view(), a.view(), wrong.view(), error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("dtype"), std::string::npos);
}

TEST(Elementwise, StridedInputsAndOutputs) {
    std::string error;
    // a transposed (3,2) view of a (2,3) array, added to itself.
    tensor a = random_tensor(CB_DTYPE_INT32, {2, 3}, 7);
    tensor_view t = a.view();
    t.ndim = 2;
    t.shape[0] = 3;
    t.shape[1] = 2;
    t.strides[0] = 1;
    t.strides[1] = 3;
    tensor o(CB_DTYPE_INT32, {3, 2});
    ASSERT_EQ(binary(binary_op::multiply, t, t, o.view(), error), CB_OK);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 2; ++j) {
            double v = get(a, j * 3 + i);
            EXPECT_EQ(get(o, i * 2 + j), v * v);
        }
}

TEST(Elementwise, UnaryEveryDtype) {
    std::string error;
    for (auto d : all_dtypes) {
        tensor a = random_tensor(d, {1000}, 11);
        if (d == CB_DTYPE_INT8) a.as<std::int8_t>()[0] = -128;
        tensor o(d, {1000});
        cb_status s = unary(unary_op::negate, a.view(), o.view(), error);
        if (d == CB_DTYPE_BOOL) {
            EXPECT_EQ(s, CB_ERR_UNSUPPORTED);
        } else {
            ASSERT_EQ(s, CB_OK);
            for (int i = 0; i < 1000; ++i) EXPECT_EQ(get(o, i), wrap_to(d, -(long double)get(a, i))) << dtype_name(d);
        }
        ASSERT_EQ(unary(unary_op::abs, a.view(), o.view(), error), CB_OK);
        for (int i = 0; i < 1000; ++i)
            EXPECT_EQ(get(o, i), wrap_to(d, std::fabs((long double)get(a, i)))) << dtype_name(d);
    }
}

TEST(Elementwise, CastEveryPair) {
    std::string error;
    const double values[] = {0, 1, -1, 2.75, -2.75, 127, 128, 255, 256, 300, -129, 40000, -70000.5, 3e9};
    for (auto from : all_dtypes)
        for (auto to : all_dtypes) {
            tensor in(from, {14}), out(to, {14});
            for (int i = 0; i < 14; ++i) set(in, i, values[i]);  // stores already-wrapped for ints
            for (int i = 0; i < 14; ++i)
                if (!is_float(from) && from != CB_DTYPE_BOOL) set(in, i, wrap_to(from, std::trunc(values[i])));
            ASSERT_EQ(cast(in.view(), out.view(), error), CB_OK);
            for (int i = 0; i < 14; ++i) {
                double v = get(in, i), want;
                if (!std::isfinite(v)) continue;  // float16 overflows 3e9 and -70000.5: UB as integers
                if (to == CB_DTYPE_BOOL)
                    want = v != 0;
                else if (is_float(to))
                    want = rounded(to, v);
                else
                    want = wrap_to(to, std::trunc((long double)v));
                EXPECT_EQ(get(out, i), want) << dtype_name(from) << "->" << dtype_name(to) << " " << v;
            }
        }
}

TEST(Elementwise, FillAndArange) {
    std::string error;
    for (auto d : all_dtypes) {
        tensor t(d, {3, 5});
        ASSERT_EQ(fill(t.view(), scalar::of_int(3), error), CB_OK);
        for (int i = 0; i < 15; ++i) EXPECT_EQ(get(t, i), d == CB_DTYPE_BOOL ? 1.0 : 3.0);
        tensor r(d, {100});
        ASSERT_EQ(arange(r.view(), scalar::of_int(-5), scalar::of_int(3), error), CB_OK);
        for (int i = 0; i < 100; ++i)
            EXPECT_EQ(get(r, i), d == CB_DTYPE_BOOL ? double(-5 + 3 * i != 0) : wrap_to(d, -5 + 3 * i))
                << dtype_name(d);
    }
    tensor f(CB_DTYPE_FLOAT64, {10});
    ASSERT_EQ(arange(f.view(), scalar::of(0.5), scalar::of(0.25), error), CB_OK);
    for (int i = 0; i < 10; ++i) EXPECT_DOUBLE_EQ(f.as<double>()[i], 0.5 + 0.25 * i);
}

TEST(Elementwise, ThreadCountDoesNotChangeResults) {
    std::string error;
    tensor a = random_tensor(CB_DTYPE_FLOAT32, {1 << 20}, 5), b = random_tensor(CB_DTYPE_FLOAT32, {1 << 20}, 6);
    tensor o1(CB_DTYPE_FLOAT32, {1 << 20}), o4(CB_DTYPE_FLOAT32, {1 << 20});
    engine e1(1), e4(4);
    ASSERT_EQ(binary(binary_op::multiply, a.view(), b.view(), o1.view(), error, e1), CB_OK);
    ASSERT_EQ(binary(binary_op::multiply, a.view(), b.view(), o4.view(), error, e4), CB_OK);
    EXPECT_EQ(std::memcmp(o1.data(), o4.data(), o1.bytes()), 0);
}

TEST(Elementwise, InPlaceAndConcurrentCallers) {
    std::string error;
    engine eng(3);
    tensor a = random_tensor(CB_DTYPE_INT64, {200000}, 21), b = random_tensor(CB_DTYPE_INT64, {200000}, 22);
    tensor want(CB_DTYPE_INT64, {200000});
    for (std::int64_t i = 0; i < a.size(); ++i) set(want, i, get(a, i) + get(b, i));
    ASSERT_EQ(binary(binary_op::add, a.view(), b.view(), a.view(), error, eng), CB_OK);  // a += b
    EXPECT_EQ(std::memcmp(a.data(), want.data(), a.bytes()), 0);

    // Several threads sharing one engine: calls are serialised, results stay exact.
    std::vector<tensor> outs;
    for (int t = 0; t < 4; ++t) outs.emplace_back(CB_DTYPE_INT64, std::initializer_list<std::int64_t>{200000});
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&, t] {
            std::string own_error;  // one per thread
            for (int r = 0; r < 20; ++r)
                (void)binary(binary_op::multiply, b.view(), b.view(), outs[t].view(), own_error, eng);
        });
    for (auto& c : callers) c.join();
    for (int t = 0; t < 4; ++t)
        for (std::int64_t i = 0; i < b.size(); i += 997) EXPECT_EQ(get(outs[t], i), get(b, i) * get(b, i));
}

// Values past int64 keep their unsigned meaning: float64 -> uint64 converts [2^63, 2^64) exactly
// (numpy on x86: 2^64 and inf give 0, NaN 2^63), uint64 -> float64 rounds as unsigned, and
// comparisons and division treat the top bit as a value, not a sign.
TEST(Elementwise, Uint64AboveInt64) {
    std::string error;
    tensor f(CB_DTYPE_FLOAT64, {5}), u(CB_DTYPE_UINT64, {5});
    const double fv[] = {1.8e19, 9223372036854775808.0, 18446744073709551616.0, -1.0, NAN};
    std::memcpy(f.data(), fv, sizeof fv);
    ASSERT_EQ(cast(f.view(), u.view(), error), CB_OK);
    EXPECT_EQ(u.as<std::uint64_t>()[0], 18000000000000000000u);
    EXPECT_EQ(u.as<std::uint64_t>()[1], 9223372036854775808u);
    EXPECT_EQ(u.as<std::uint64_t>()[2], 0u);
    EXPECT_EQ(u.as<std::uint64_t>()[3], 18446744073709551615u);
    EXPECT_EQ(u.as<std::uint64_t>()[4], 9223372036854775808u);
    tensor back(CB_DTYPE_FLOAT64, {5});
    ASSERT_EQ(cast(u.view(), back.view(), error), CB_OK);
    EXPECT_EQ(back.as<double>()[0], 1.8e19);
    tensor two(CB_DTYPE_UINT64, {}), q(CB_DTYPE_UINT64, {5}), gt(CB_DTYPE_BOOL, {5});
    two.as<std::uint64_t>()[0] = 2;
    ASSERT_EQ(binary(binary_op::floor_divide, u.view(), two.view(), q.view(), error), CB_OK);
    EXPECT_EQ(q.as<std::uint64_t>()[0], 9000000000000000000u);
    ASSERT_EQ(binary(binary_op::greater, u.view(), two.view(), gt.view(), error), CB_OK);
    EXPECT_TRUE(gt.as<bool>()[3]);
    tensor i(CB_DTYPE_INT64, {}), s(CB_DTYPE_FLOAT64, {5});  // uint64 + int64 is float64
    i.as<std::int64_t>()[0] = -1;
    ASSERT_EQ(binary(binary_op::add, u.view(), i.view(), s.view(), error), CB_OK);
    EXPECT_EQ(s.as<double>()[0], 1.8e19 - 1.0);
}

// float16 computes in float32 and rounds once, as numpy's half loops: 1 / 3 is the half nearest
// 1/3, 65504 + 32 overflows to inf, exp of int8 is float16, and casts round to nearest even.
TEST(Elementwise, Float16RoundsOnceFromFloat32) {
    std::string error;
    tensor a(CB_DTYPE_FLOAT16, {3}), b(CB_DTYPE_FLOAT16, {3}), o(CB_DTYPE_FLOAT16, {3});
    const float16 av[] = {float16(1.0f), float16(65504.0f), float16(-2.5f)};
    const float16 bv[] = {float16(3.0f), float16(32.0f), float16(0.0f)};
    std::memcpy(a.data(), av, sizeof av);
    std::memcpy(b.data(), bv, sizeof bv);
    ASSERT_EQ(binary(binary_op::divide, a.view(), b.view(), o.view(), error), CB_OK) << error;
    EXPECT_EQ(static_cast<float>(o.as<float16>()[0]), static_cast<float>(float16(1.0f / 3.0f)));
    EXPECT_EQ(static_cast<float>(o.as<float16>()[2]), -INFINITY);
    ASSERT_EQ(binary(binary_op::add, a.view(), b.view(), o.view(), error), CB_OK);
    EXPECT_EQ(static_cast<float>(o.as<float16>()[1]), INFINITY);
    tensor i(CB_DTYPE_INT8, {2}), e(CB_DTYPE_FLOAT16, {2});
    i.as<std::int8_t>()[0] = 1;
    i.as<std::int8_t>()[1] = 11;  // e^11 = 59874.14...: the nearest half is 59872
    ASSERT_EQ(unary(unary_op::exp, i.view(), e.view(), error), CB_OK) << error;
    EXPECT_EQ(static_cast<float>(e.as<float16>()[0]), static_cast<float>(float16(2.718281828f)));
    EXPECT_EQ(static_cast<float>(e.as<float16>()[1]), 59872.0f);
    tensor d(CB_DTYPE_FLOAT64, {2}), h(CB_DTYPE_FLOAT16, {2});
    d.as<double>()[0] = 2049.0;  // a tie between 2048 and 2050: to even
    d.as<double>()[1] = 1e-8;    // below the smallest subnormal's half: 0
    ASSERT_EQ(cast(d.view(), h.view(), error), CB_OK);
    EXPECT_EQ(static_cast<float>(h.as<float16>()[0]), 2048.0f);
    EXPECT_EQ(static_cast<float>(h.as<float16>()[1]), 0.0f);
}

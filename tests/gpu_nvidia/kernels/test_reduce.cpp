// Reductions over everything and along each axis, against naive loops written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/kernels/promotion.hpp"
#include "common/kernels/reduce.hpp"
#include "test_util.hpp"

using namespace kt;

namespace {

const reduce_op all_ops[] = {reduce_op::sum, reduce_op::mean, reduce_op::max, reduce_op::min};

// Naive reference over the elements idx(k), k < n.
template <class Idx>
double ref_reduce(reduce_op op, const tensor& in, std::int64_t n, Idx idx) {
    long double acc = 0;
    double m = n ? get(in, idx(0)) : 0;
    for (std::int64_t k = 0; k < n; ++k) {
        double v = get(in, idx(k));
        acc += v;
        if (op == reduce_op::max) m = v > m ? v : m;
        if (op == reduce_op::min) m = v < m ? v : m;
    }
    if (op == reduce_op::sum) return static_cast<double>(acc);
    if (op == reduce_op::mean) return static_cast<double>(acc / n);
    return m;
}

void expect_close(double got, double want, cb_dtype d, const std::string& where) {
    const double rel = d == CB_DTYPE_FLOAT16 ? 1e-3 : d == CB_DTYPE_FLOAT32 ? 1e-5 : 1e-9;  // float16: half an ulp
    double tol = rel * std::max(1.0, std::fabs(want));
    EXPECT_NEAR(got, want, tol) << where;
}

}  // namespace

TEST(Reduce, AllElementsEveryDtype) {
    std::string error;
    engine eng(3);
    for (auto d : all_dtypes)
        for (std::int64_t n : {1, 7, 16, 17, 1000, 300001}) {
            tensor in = random_tensor(d, {n}, static_cast<unsigned>(n));
            for (auto op : all_ops) {
                cb_dtype rd{};
                shape_t shape;
                ASSERT_EQ(plan_reduce(op, in.view(), k_all_axes, rd, shape, error), CB_OK);
                EXPECT_EQ(shape.ndim, 0);
                tensor out(rd, {});
                cb_status s = reduce(op, in.view(), k_all_axes, out.view(), error, eng);
                ASSERT_EQ(s, CB_OK) << error;
                std::string where = std::string(op_name(op)) + " " + dtype_name(d) + " n=" + std::to_string(n);
                expect_close(get(out, 0), ref_reduce(op, in, n, [](std::int64_t k) { return k; }), rd, where);
            }
        }
}

TEST(Reduce, AlongEachAxis) {
    std::string error;
    engine eng(2);
    const std::int64_t s0 = 4, s1 = 37, s2 = 1500;
    for (auto d : {CB_DTYPE_FLOAT32, CB_DTYPE_INT16, CB_DTYPE_UINT8, CB_DTYPE_BOOL, CB_DTYPE_FLOAT64}) {
        tensor in = random_tensor(d, {s0, s1, s2}, 3);
        for (int axis = -3; axis < 3; ++axis)
            for (auto op : all_ops) {
                int ax = axis < 0 ? axis + 3 : axis;
                std::int64_t dims[3] = {s0, s1, s2}, strides[3] = {s1 * s2, s2, 1};
                std::int64_t od[2];
                int k = 0;
                for (int i = 0; i < 3; ++i)
                    if (i != ax) od[k++] = dims[i];
                tensor out(reduce_result_dtype(op, d), 2, od);
                cb_status s = reduce(op, in.view(), axis, out.view(), error, eng);
                ASSERT_EQ(s, CB_OK) << error;
                for (std::int64_t i = 0; i < od[0]; ++i)
                    for (std::int64_t j = 0; j < od[1]; ++j) {
                        std::int64_t base = 0;
                        int oi = 0;
                        std::int64_t oidx[2] = {i, j};
                        for (int dd = 0; dd < 3; ++dd)
                            if (dd != ax) base += oidx[oi++] * strides[dd];
                        double want =
                            ref_reduce(op, in, dims[ax], [&](std::int64_t t) { return base + t * strides[ax]; });
                        expect_close(get(out, i * od[1] + j), want, out.view().dtype,
                                     std::string(op_name(op)) + " " + dtype_name(d) + " axis " + std::to_string(axis));
                        if (::testing::Test::HasFailure()) return;
                    }
            }
    }
}

TEST(Reduce, NanAndIntWrapAndErrors) {
    std::string error;
    tensor f(CB_DTYPE_FLOAT32, {100000});
    for (int i = 0; i < 100000; ++i) f.as<float>()[i] = float(i);
    f.as<float>()[77777] = NAN;
    tensor o(CB_DTYPE_FLOAT32, {});
    ASSERT_EQ(reduce(reduce_op::max, f.view(), k_all_axes, o.view(), error), CB_OK);
    EXPECT_TRUE(std::isnan(o.as<float>()[0]));
    ASSERT_EQ(reduce(reduce_op::min, f.view(), k_all_axes, o.view(), error), CB_OK);
    EXPECT_TRUE(std::isnan(o.as<float>()[0]));

    // int32 sum goes to int64, so it does not overflow.
    tensor big(CB_DTYPE_INT32, {3});
    for (int i = 0; i < 3; ++i) big.as<std::int32_t>()[i] = std::numeric_limits<std::int32_t>::max();
    tensor s(CB_DTYPE_INT64, {});
    ASSERT_EQ(reduce(reduce_op::sum, big.view(), k_all_axes, s.view(), error), CB_OK);
    EXPECT_EQ(s.as<std::int64_t>()[0], 3LL * std::numeric_limits<std::int32_t>::max());

    tensor empty(CB_DTYPE_FLOAT64, {0});
    tensor e(CB_DTYPE_FLOAT64, {});
    cb_status st = reduce(reduce_op::max, empty.view(), k_all_axes, e.view(), error);
    EXPECT_EQ(st, CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error, "zero-size array to reduction operation maximum which has no identity");
    ASSERT_EQ(reduce(reduce_op::sum, empty.view(), k_all_axes, e.view(), error), CB_OK);
    EXPECT_EQ(e.as<double>()[0], 0.0);

    tensor m(CB_DTYPE_FLOAT64, {2, 3});
    tensor wrong(CB_DTYPE_FLOAT64, {3});
    EXPECT_EQ(reduce(reduce_op::sum, m.view(), 1, wrong.view(), error), CB_ERR_INVALID_ARGUMENT);
    st = reduce(reduce_op::sum, m.view(), 2, wrong.view(), error);
    EXPECT_EQ(error, "axis 2 is out of bounds for array of dimension 2");
}

TEST(Reduce, StridedInput) {
    std::string error;
    tensor a = random_tensor(CB_DTYPE_INT32, {3, 4}, 9);
    tensor_view t = a.view();  // the (4,3) transpose
    t.shape[0] = 4;
    t.shape[1] = 3;
    t.strides[0] = 1;
    t.strides[1] = 4;
    tensor out(CB_DTYPE_INT64, {4});
    ASSERT_EQ(reduce(reduce_op::sum, t, 1, out.view(), error), CB_OK);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(get(out, i), get(a, i) + get(a, 4 + i) + get(a, 8 + i));
}

TEST(Reduce, InfinityAndLateNanInFastPath) {
    std::string error;
    for (auto d : {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64}) {
        tensor a(d, {1001});
        for (int i = 0; i < 1001; ++i) set(a, i, (i * 37) % 101 - 50);
        set(a, 500, INFINITY);
        set(a, 501, -INFINITY);
        tensor o(d, {});
        ASSERT_EQ(reduce(reduce_op::max, a.view(), k_all_axes, o.view(), error), CB_OK);
        EXPECT_EQ(get(o, 0), INFINITY);
        ASSERT_EQ(reduce(reduce_op::min, a.view(), k_all_axes, o.view(), error), CB_OK);
        EXPECT_EQ(get(o, 0), -INFINITY);
        set(a, 1000, NAN);  // in the scalar tail
        ASSERT_EQ(reduce(reduce_op::max, a.view(), k_all_axes, o.view(), error), CB_OK);
        EXPECT_TRUE(std::isnan(get(o, 0)));
    }
    for (auto d : {CB_DTYPE_INT8, CB_DTYPE_UINT8, CB_DTYPE_INT16, CB_DTYPE_INT32, CB_DTYPE_INT64}) {
        tensor a = random_tensor(d, {999}, 4);
        set(a, 998, d == CB_DTYPE_UINT8 ? 255 : 100);
        set(a, 3, d == CB_DTYPE_UINT8 ? 0 : -100);
        tensor o(d, {});
        ASSERT_EQ(reduce(reduce_op::max, a.view(), k_all_axes, o.view(), error), CB_OK);
        EXPECT_EQ(get(o, 0), d == CB_DTYPE_UINT8 ? 255 : 100) << dtype_name(d);
        ASSERT_EQ(reduce(reduce_op::min, a.view(), k_all_axes, o.view(), error), CB_OK);
        EXPECT_EQ(get(o, 0), d == CB_DTYPE_UINT8 ? 0 : -100) << dtype_name(d);
    }
}

// max / min of bool (numpy's any / all) may stop early; the one deciding element sits at the
// start, inside a 4 KiB block, on a block edge or last, and any non-zero byte counts as true.
TEST(Reduce, BoolAnyAllFindTheDecidingElementAnywhere) {
    std::string error;
    const std::int64_t n = 3 * 4096 + 5;
    for (std::int64_t at : std::initializer_list<std::int64_t>{0, 1, 4095, 4096, 8200, n - 1}) {
        for (bool all : {false, true}) {  // all: ones with one zero; any: zeros with one non-zero
            tensor a(CB_DTYPE_BOOL, {n});
            auto* bytes = static_cast<unsigned char*>(a.view().data);
            std::memset(bytes, all ? 1 : 0, std::size_t(n));
            tensor o(CB_DTYPE_BOOL, {});
            reduce_op op = all ? reduce_op::min : reduce_op::max;
            ASSERT_EQ(reduce(op, a.view(), k_all_axes, o.view(), error), CB_OK);
            EXPECT_EQ(get(o, 0), all ? 1 : 0) << "uniform, at " << at;
            bytes[at] = all ? 0 : 2;
            ASSERT_EQ(reduce(op, a.view(), k_all_axes, o.view(), error), CB_OK);
            EXPECT_EQ(get(o, 0), all ? 0 : 1) << op_name(op) << " decided at " << at;
        }
    }
}

// nanmax / nanmin (numpy's fmax.reduce / fmin.reduce) skip NaNs wherever they sit: first, in the
// vector body, in the scalar tail, along an inner axis; a run of NaNs only gives NaN.
TEST(Reduce, NanMaxAndNanMinSkipNans) {
    std::string error;
    for (auto d : {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64}) {
        tensor a(d, {1001});
        for (int i = 0; i < 1001; ++i) set(a, i, i % 2 ? NAN : (i * 37) % 101 - 50);
        set(a, 0, NAN);
        set(a, 998, 60);    // the largest, among NaNs
        set(a, 1000, -70);  // the smallest, in the scalar tail
        tensor o(d, {});
        ASSERT_EQ(reduce(reduce_op::nanmax, a.view(), k_all_axes, o.view(), error), CB_OK) << error;
        EXPECT_EQ(get(o, 0), 60) << dtype_name(d);
        ASSERT_EQ(reduce(reduce_op::nanmin, a.view(), k_all_axes, o.view(), error), CB_OK) << error;
        EXPECT_EQ(get(o, 0), -70) << dtype_name(d);
        tensor rows(d, {3, 100});  // along axis 0: column j is all NaN for j = 7 only
        for (int i = 0; i < 300; ++i) set(rows, i, (i / 100 == 1 || i % 100 == 7) ? NAN : i % 100 + i / 100);
        tensor cols(d, {100});
        ASSERT_EQ(reduce(reduce_op::nanmax, rows.view(), 0, cols.view(), error), CB_OK) << error;
        EXPECT_EQ(get(cols, 3), 5);
        EXPECT_TRUE(std::isnan(get(cols, 7)));
        tensor all_nan(d, {200});
        for (int i = 0; i < 200; ++i) set(all_nan, i, NAN);
        ASSERT_EQ(reduce(reduce_op::nanmin, all_nan.view(), k_all_axes, o.view(), error), CB_OK) << error;
        EXPECT_TRUE(std::isnan(get(o, 0)));
    }
    tensor ints = random_tensor(CB_DTYPE_INT16, {500}, 9), o(CB_DTYPE_INT16, {}), m(CB_DTYPE_INT16, {});
    ASSERT_EQ(reduce(reduce_op::nanmax, ints.view(), k_all_axes, o.view(), error), CB_OK) << error;
    ASSERT_EQ(reduce(reduce_op::max, ints.view(), k_all_axes, m.view(), error), CB_OK) << error;
    EXPECT_EQ(get(o, 0), get(m, 0));
    tensor empty(CB_DTYPE_FLOAT32, {0}), e(CB_DTYPE_FLOAT32, {});
    EXPECT_EQ(reduce(reduce_op::nanmax, empty.view(), k_all_axes, e.view(), error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error, "zero-size array to reduction operation fmax which has no identity");
}

// prod: numpy's multiply.reduce. Integers and bool give int64 and wrap; floats stay in their type
// (float32 overflows to inf as numpy's does); the empty product is 1.
TEST(Reduce, Prod) {
    std::string error;
    engine eng(3);
    struct row {
        cb_dtype d;
        std::vector<double> values;
        cb_dtype result;
        long double want;  // holds every int64 exactly
    };
    const row table[] = {
        {CB_DTYPE_INT32, std::vector<double>(40, 3.0), CB_DTYPE_INT64,
         (long double)std::int64_t(12157665459056928801ULL)},  // 3^40 wraps to a negative int64
        {CB_DTYPE_INT8, {-2, 3, -4, 5, 100}, CB_DTYPE_INT64, 12000},
        {CB_DTYPE_UINT8, {200, 200, 200}, CB_DTYPE_UINT64, 8000000},
        {CB_DTYPE_UINT32, {4e9, 4e9}, CB_DTYPE_UINT64, 16e18L},                  // past int64, within uint64
        {CB_DTYPE_UINT64, {4294967296.0, 4294967296.0, 3}, CB_DTYPE_UINT64, 0},  // 2^64 * 3 wraps to 0
        {CB_DTYPE_BOOL, {1, 1, 0, 1}, CB_DTYPE_INT64, 0},
        {CB_DTYPE_BOOL, {1, 1, 1}, CB_DTYPE_INT64, 1},
        {CB_DTYPE_FLOAT64, std::vector<double>(40, 2.0), CB_DTYPE_FLOAT64, 1099511627776.0L},  // 2^40
        {CB_DTYPE_FLOAT32, {1e30, 1e30, 1e-30}, CB_DTYPE_FLOAT32, INFINITY},                   // overflow on the way
        {CB_DTYPE_FLOAT64, {INFINITY, 0.0, 2.0}, CB_DTYPE_FLOAT64, NAN},
        {CB_DTYPE_FLOAT64, {-1.5, 2.0, NAN, 4.0}, CB_DTYPE_FLOAT64, NAN},
        {CB_DTYPE_INT16, {}, CB_DTYPE_INT64, 1},
        {CB_DTYPE_FLOAT32, {}, CB_DTYPE_FLOAT32, 1},
    };
    for (const row& r : table) {
        tensor in(r.d, {std::int64_t(r.values.size())});
        for (std::size_t i = 0; i < r.values.size(); ++i) set(in, std::int64_t(i), r.values[i]);
        cb_dtype rd{};
        shape_t shape;
        ASSERT_EQ(plan_reduce(reduce_op::prod, in.view(), k_all_axes, rd, shape, error), CB_OK);
        ASSERT_EQ(rd, r.result) << dtype_name(r.d);
        tensor out(rd, {});
        ASSERT_EQ(reduce(reduce_op::prod, in.view(), k_all_axes, out.view(), error, eng), CB_OK) << error;
        std::string where = std::string(dtype_name(r.d)) + " n=" + std::to_string(r.values.size());
        if (std::isnan(r.want))
            EXPECT_TRUE(std::isnan(get(out, 0))) << where;
        else if (rd == CB_DTYPE_INT64)
            EXPECT_EQ(out.as<std::int64_t>()[0], std::int64_t(r.want)) << where;
        else if (rd == CB_DTYPE_UINT64)
            EXPECT_EQ(out.as<std::uint64_t>()[0], std::uint64_t(r.want)) << where;
        else
            EXPECT_EQ(get(out, 0), double(r.want)) << where;
    }
    // Along each axis of a (3, 4, 5) int16 array, against a wrapping loop; an empty axis gives 1.
    tensor in = random_tensor(CB_DTYPE_INT16, {3, 4, 5}, 21);
    const std::int64_t dims[3] = {3, 4, 5}, strides[3] = {20, 5, 1};
    for (int ax = 0; ax < 3; ++ax) {
        std::int64_t od[2];
        for (int i = 0, k = 0; i < 3; ++i)
            if (i != ax) od[k++] = dims[i];
        tensor out(CB_DTYPE_INT64, 2, od);
        ASSERT_EQ(reduce(reduce_op::prod, in.view(), ax, out.view(), error, eng), CB_OK) << error;
        for (std::int64_t i = 0; i < od[0]; ++i)
            for (std::int64_t j = 0; j < od[1]; ++j) {
                std::int64_t oidx[2] = {i, j}, base = 0;
                for (int dd = 0, oi = 0; dd < 3; ++dd)
                    if (dd != ax) base += oidx[oi++] * strides[dd];
                std::uint64_t want = 1;
                for (std::int64_t t = 0; t < dims[ax]; ++t)
                    want *= std::uint64_t(std::int64_t(get(in, base + t * strides[ax])));
                EXPECT_EQ(out.as<std::int64_t>()[i * od[1] + j], std::int64_t(want)) << "axis " << ax;
            }
    }
    tensor empty(CB_DTYPE_FLOAT64, {2, 0});
    tensor e(CB_DTYPE_FLOAT64, {2});
    ASSERT_EQ(reduce(reduce_op::prod, empty.view(), 1, e.view(), error, eng), CB_OK);
    EXPECT_EQ(get(e, 0), 1.0);
    EXPECT_EQ(get(e, 1), 1.0);
}

// Unsigned values above the signed range: max/min compare them as unsigned (the vector loop as
// well as the tail), and sums wrap modulo 2^64 into uint64, as numpy's.
TEST(Reduce, UnsignedAboveSignedRange) {
    std::string error;
    tensor a(CB_DTYPE_UINT64, {999});
    auto* p = a.as<std::uint64_t>();
    for (int i = 0; i < 999; ++i) p[i] = (std::uint64_t(1) << 63) + std::uint64_t(i);
    p[500] = ~std::uint64_t(0);
    p[3] = 7;
    tensor o(CB_DTYPE_UINT64, {});
    ASSERT_EQ(reduce(reduce_op::max, a.view(), k_all_axes, o.view(), error), CB_OK);
    EXPECT_EQ(o.as<std::uint64_t>()[0], ~std::uint64_t(0));
    ASSERT_EQ(reduce(reduce_op::min, a.view(), k_all_axes, o.view(), error), CB_OK);
    EXPECT_EQ(o.as<std::uint64_t>()[0], 7u);
    tensor s(CB_DTYPE_UINT64, {3});
    s.as<std::uint64_t>()[0] = std::uint64_t(1) << 63;
    s.as<std::uint64_t>()[1] = std::uint64_t(1) << 63;
    s.as<std::uint64_t>()[2] = 5;
    ASSERT_EQ(reduce(reduce_op::sum, s.view(), k_all_axes, o.view(), error), CB_OK);
    EXPECT_EQ(o.as<std::uint64_t>()[0], 5u);
    tensor u(CB_DTYPE_UINT32, {2});
    u.as<std::uint32_t>()[0] = 0xFFFFFFFFu;
    u.as<std::uint32_t>()[1] = 0xFFFFFFFFu;
    ASSERT_EQ(reduce(reduce_op::sum, u.view(), k_all_axes, o.view(), error), CB_OK);  // no uint32 wrap
    EXPECT_EQ(o.as<std::uint64_t>()[0], 2 * std::uint64_t(0xFFFFFFFFu));
    tensor m(CB_DTYPE_FLOAT64, {});
    ASSERT_EQ(reduce(reduce_op::mean, u.view(), k_all_axes, m.view(), error), CB_OK);
    EXPECT_EQ(m.as<double>()[0], 4294967295.0);
}

// A float16 sum accumulates in float32 or wider and rounds once: 10000 x 0.1 (as a half) is the half
// nearest the exact total, where a half accumulator would stall near 256.
TEST(Reduce, Float16SumAccumulatesWide) {
    std::string error;
    tensor a(CB_DTYPE_FLOAT16, {10000});
    for (std::int64_t i = 0; i < a.size(); ++i) a.as<float16>()[i] = float16(0.1f);
    const double exact = 10000.0 * static_cast<double>(float16(0.1f));
    tensor o(CB_DTYPE_FLOAT16, {});
    ASSERT_EQ(reduce(reduce_op::sum, a.view(), k_all_axes, o.view(), error), CB_OK) << error;
    EXPECT_EQ(static_cast<double>(o.as<float16>()[0]), static_cast<double>(float16(exact)));
    ASSERT_EQ(reduce(reduce_op::mean, a.view(), k_all_axes, o.view(), error), CB_OK) << error;
    EXPECT_EQ(static_cast<float>(o.as<float16>()[0]), static_cast<float>(float16(0.1f)));
    a.as<float16>()[77] = float16(-3.0f);
    ASSERT_EQ(reduce(reduce_op::min, a.view(), k_all_axes, o.view(), error), CB_OK) << error;
    EXPECT_EQ(static_cast<float>(o.as<float16>()[0]), -3.0f);
}

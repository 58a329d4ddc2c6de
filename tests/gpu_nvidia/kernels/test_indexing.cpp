// The CPU engine's take, put, copyto, sort and argsort: numpy's results on small cases written
// out here, and the calls they refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "common/kernels/indexing.hpp"
#include "common/kernels/indexing_functors.hpp"
#include "common/kernels/sort.hpp"
#include "test_util.hpp"

using namespace kt;

namespace {

tensor of(cb_dtype d, std::initializer_list<std::int64_t> shape, std::vector<double> values) {
    tensor t(d, shape);
    for (std::int64_t i = 0; i < t.size(); ++i) set(t, i, values[static_cast<std::size_t>(i)]);
    return t;
}

std::vector<double> values(const tensor& t) {
    std::vector<double> v;
    for (std::int64_t i = 0; i < t.size(); ++i) v.push_back(get(t, i));
    return v;
}

}  // namespace

TEST(Indexing, TakeWrapsIndicesAndBroadcasts) {
    std::string error;
    tensor in = of(CB_DTYPE_INT16, {2, 3}, {10, 11, 12, 13, 14, 15});
    tensor idx = of(CB_DTYPE_INT64, {4}, {0, -1, 7, -8});  // numpy's mode='wrap' over 6 elements
    tensor out(CB_DTYPE_INT16, {4});
    ASSERT_EQ(take(in.view(), idx.view(), out.view(), error), CB_OK) << error;
    EXPECT_EQ(values(out), (std::vector<double>{10, 15, 11, 14}));
    tensor one = of(CB_DTYPE_INT64, {}, {2});  // a 0-d index broadcast to the output
    tensor out2(CB_DTYPE_INT16, {2, 2});
    ASSERT_EQ(take(in.view(), one.view(), out2.view(), error), CB_OK) << error;
    EXPECT_EQ(values(out2), (std::vector<double>{12, 12, 12, 12}));
}

TEST(Indexing, TakeRefusesBadCalls) {
    std::string error;
    tensor in = of(CB_DTYPE_FLOAT32, {3}, {1, 2, 3});
    tensor idx32 = of(CB_DTYPE_INT32, {1}, {0});
    tensor out(CB_DTYPE_FLOAT32, {1});
    EXPECT_EQ(take(in.view(), idx32.view(), out.view(), error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("int64"), std::string::npos) << error;
    tensor idx = of(CB_DTYPE_INT64, {1}, {0});
    tensor wrong(CB_DTYPE_FLOAT64, {1});
    EXPECT_EQ(take(in.view(), idx.view(), wrong.view(), error), CB_ERR_INVALID_ARGUMENT);
    tensor empty(CB_DTYPE_FLOAT32, {0});
    EXPECT_EQ(take(empty.view(), idx.view(), out.view(), error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("empty"), std::string::npos) << error;
    tensor_view strided = in.view();
    strided.shape[0] = 2;
    strided.strides[0] = 2;
    tensor out1(CB_DTYPE_FLOAT32, {1});
    EXPECT_EQ(take(strided, idx.view(), out1.view(), error), CB_ERR_INVALID_ARGUMENT);
}

TEST(Indexing, PutKeepsTheLastOfARepeatedIndex) {
    std::string error;
    tensor out = of(CB_DTYPE_FLOAT64, {5}, {0, 0, 0, 0, 0});
    tensor idx = of(CB_DTYPE_INT64, {4}, {1, -1, 1, 6});  // 6 wraps to 1
    tensor vals = of(CB_DTYPE_FLOAT64, {4}, {1, 2, 3, 4});
    ASSERT_EQ(put(vals.view(), idx.view(), out.view(), error), CB_OK) << error;
    EXPECT_EQ(values(out), (std::vector<double>{0, 4, 0, 0, 2}));
    tensor scalar = of(CB_DTYPE_FLOAT64, {}, {9});
    ASSERT_EQ(put(scalar.view(), idx.view(), out.view(), error), CB_OK) << error;
    EXPECT_EQ(values(out), (std::vector<double>{0, 9, 0, 0, 9}));
    tensor ints = of(CB_DTYPE_INT32, {4}, {1, 2, 3, 4});
    EXPECT_EQ(put(ints.view(), idx.view(), out.view(), error), CB_ERR_INVALID_ARGUMENT);
}

TEST(Indexing, CopytoWritesWhereTheMaskIsSet) {
    std::string error;
    tensor out = of(CB_DTYPE_UINT8, {2, 3}, {1, 2, 3, 4, 5, 6});
    tensor mask = of(CB_DTYPE_BOOL, {3}, {1, 0, 1});  // broadcast over the rows
    tensor src = of(CB_DTYPE_UINT8, {2, 1}, {70, 80});
    ASSERT_EQ(copyto(src.view(), mask.view(), out.view(), error), CB_OK) << error;
    EXPECT_EQ(values(out), (std::vector<double>{70, 2, 70, 80, 5, 80}));
    tensor not_bool = of(CB_DTYPE_INT8, {3}, {1, 0, 1});
    EXPECT_EQ(copyto(src.view(), not_bool.view(), out.view(), error), CB_ERR_INVALID_ARGUMENT);
    tensor too_big = of(CB_DTYPE_UINT8, {3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_EQ(copyto(too_big.view(), mask.view(), out.view(), error), CB_ERR_INVALID_ARGUMENT);
}

TEST(Sorting, NumpysOrderWithNanLast) {
    std::string error;
    for (cb_dtype d : {cb_dtype{CB_DTYPE_FLOAT32}, cb_dtype{CB_DTYPE_FLOAT64}}) {
        tensor in = of(d, {2, 4}, {NAN, 1, -INFINITY, 0.5, 3, NAN, INFINITY, -1});
        tensor out(d, {2, 4});
        ASSERT_EQ(sort(in.view(), out.view(), error), CB_OK) << error;
        const std::vector<double> got = values(out);
        EXPECT_EQ(got[0], -INFINITY);
        EXPECT_EQ(got[1], 0.5);
        EXPECT_EQ(got[2], 1);
        EXPECT_TRUE(std::isnan(got[3]));
        EXPECT_EQ(got[4], -1);
        EXPECT_EQ(got[5], 3);
        EXPECT_EQ(got[6], INFINITY);
        EXPECT_TRUE(std::isnan(got[7]));
        tensor arg(CB_DTYPE_INT64, {2, 4});
        ASSERT_EQ(argsort(in.view(), arg.view(), error), CB_OK) << error;
        EXPECT_EQ(values(arg), (std::vector<double>{2, 3, 1, 0, 3, 0, 2, 1}));
    }
}

TEST(Sorting, ArgsortIsStableAndBoolSortsFalseFirst) {
    std::string error;
    tensor in = of(CB_DTYPE_INT8, {6}, {2, 1, 2, 1, 0, 2});
    tensor arg(CB_DTYPE_INT64, {6});
    ASSERT_EQ(argsort(in.view(), arg.view(), error), CB_OK) << error;
    EXPECT_EQ(values(arg), (std::vector<double>{4, 1, 3, 0, 2, 5}));
    tensor flags = of(CB_DTYPE_BOOL, {4}, {1, 0, 1, 0});
    tensor sorted(CB_DTYPE_BOOL, {4});
    ASSERT_EQ(sort(flags.view(), sorted.view(), error), CB_OK) << error;
    EXPECT_EQ(values(sorted), (std::vector<double>{0, 0, 1, 1}));
}

// A row of a million elements and more is sorted in halves on two threads and merged: the same
// order as one stable sort (argsort's indices exactly, NaN last, -0.0 beside 0.0, repeats kept).
template <class T>
void check_long_row(cb_dtype dtype) {
    const std::int64_t n = (std::int64_t{1} << 20) + 12345;  // odd halves
    tensor in(dtype, {n});
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> pick(-300, 300);
    T* x = in.as<T>();
    for (std::int64_t i = 0; i < n; ++i) {
        const int v = pick(rng);
        x[i] = v == 300    ? T(NAN)
               : v == 298  ? -T(NAN)  // a NaN with the sign bit set still sorts last
               : v == 299  ? T(-0.0)
               : v == -300 ? T(-INFINITY)
                           : T(v) / T(4);
    }
    const auto less = [x](std::int64_t a, std::int64_t b) {
        return cudabridge::nv::kernels::fn::sort_less(x[a], x[b]);
    };
    std::vector<std::int64_t> want(static_cast<std::size_t>(n));
    std::iota(want.begin(), want.end(), std::int64_t{0});
    std::stable_sort(want.begin(), want.end(), less);

    std::string error;
    cudabridge::nv::kernels::engine two(2);
    tensor arg(CB_DTYPE_INT64, {n});
    ASSERT_EQ(argsort(in.view(), arg.view(), error, two), CB_OK) << error;
    const std::int64_t* got = arg.as<std::int64_t>();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[static_cast<std::size_t>(i)]) << i;
    tensor out(dtype, {n});
    ASSERT_EQ(sort(in.view(), out.view(), error, two), CB_OK) << error;
    const T* sorted = out.as<T>();
    std::int64_t negative_zeros_in = 0, negative_zeros_out = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const T w = x[want[static_cast<std::size_t>(i)]];
        ASSERT_TRUE(sorted[i] == w || (std::isnan(sorted[i]) && std::isnan(w))) << i;  // -0.0 == 0.0 either way
        negative_zeros_in += x[i] == T(0) && std::signbit(x[i]);
        negative_zeros_out += sorted[i] == T(0) && std::signbit(sorted[i]);
    }
    EXPECT_EQ(negative_zeros_out, negative_zeros_in);  // sort moves values, it does not rewrite them
}

// Rows of the radix length sort each on its own: numpy's order, every value kept (-0.0 too).
TEST(Sorting, RowsKeepEveryValue) {
    std::string error;
    const std::int64_t rows = 3, n = 700;
    tensor in(CB_DTYPE_FLOAT32, {rows, n}), out(CB_DTYPE_FLOAT32, {rows, n});
    float* x = in.as<float>();
    for (std::int64_t i = 0; i < rows * n; ++i)
        x[i] = i % 7 == 0 ? -0.0f : i % 11 == 0 ? -NAN : i % 13 == 0 ? NAN : float((i * 7919) % 101) - 50.0f;
    ASSERT_EQ(sort(in.view(), out.view(), error), CB_OK) << error;
    for (std::int64_t r = 0; r < rows; ++r) {
        std::vector<float> want(x + r * n, x + (r + 1) * n);
        std::sort(want.begin(), want.end(),
                  [](float a, float b) { return cudabridge::nv::kernels::fn::sort_less(a, b); });
        const float* got = out.as<float>() + r * n;
        int negative_zeros_in = 0, negative_zeros_out = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            const float w = want[static_cast<std::size_t>(i)];
            ASSERT_TRUE(got[i] == w || (std::isnan(got[i]) && std::isnan(w))) << r << "," << i;
            negative_zeros_in += w == 0.0f && std::signbit(w);
            negative_zeros_out += got[i] == 0.0f && std::signbit(got[i]);
        }
        EXPECT_EQ(negative_zeros_out, negative_zeros_in) << "row " << r;
    }
}

TEST(Sorting, ALongRowSortedInHalvesMatchesOneStableSort) {
    check_long_row<float>(CB_DTYPE_FLOAT32);
    check_long_row<double>(CB_DTYPE_FLOAT64);
}

TEST(Sorting, RefusesBadCalls) {
    std::string error;
    tensor scalar = of(CB_DTYPE_FLOAT32, {}, {1});
    tensor out(CB_DTYPE_FLOAT32, {});
    EXPECT_EQ(sort(scalar.view(), out.view(), error), CB_ERR_INVALID_ARGUMENT);
    tensor in = of(CB_DTYPE_FLOAT32, {3}, {3, 2, 1});
    tensor as_float(CB_DTYPE_FLOAT32, {3});
    EXPECT_EQ(argsort(in.view(), as_float.view(), error), CB_ERR_INVALID_ARGUMENT);  // argsort writes int64
    tensor shorter(CB_DTYPE_FLOAT32, {2});
    EXPECT_EQ(sort(in.view(), shorter.view(), error), CB_ERR_INVALID_ARGUMENT);
    tensor empty(CB_DTYPE_FLOAT32, {2, 0}), empty_out(CB_DTYPE_FLOAT32, {2, 0});
    EXPECT_EQ(sort(empty.view(), empty_out.view(), error), CB_OK) << error;
}

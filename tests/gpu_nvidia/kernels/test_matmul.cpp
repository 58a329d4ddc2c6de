// Matrix products with numpy's 1-D/2-D rules, against a naive triple loop written here.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "common/kernels/matmul.hpp"
#include "test_util.hpp"

using namespace kt;

namespace {

void check(cb_dtype da, cb_dtype db, std::vector<std::int64_t> sa, std::vector<std::int64_t> sb) {
    std::string error;
    tensor a(da, int(sa.size()), sa.data()), b(db, int(sb.size()), sb.data());
    tensor ra = random_tensor(da, {a.size()}, 1), rb = random_tensor(db, {b.size()}, 2);
    std::memcpy(a.data(), ra.data(), a.bytes());
    std::memcpy(b.data(), rb.data(), b.bytes());
    cb_dtype rd{};
    shape_t shape;
    ASSERT_EQ(plan_matmul(a.view(), b.view(), rd, shape, error), CB_OK);
    std::int64_t n = sa.size() == 2 ? sa[0] : 1, k = sa.back(), m = sb.size() == 2 ? sb[1] : 1;
    std::vector<std::int64_t> so;
    if (sa.size() == 2) so.push_back(n);
    if (sb.size() == 2) so.push_back(m);
    ASSERT_EQ(shape.ndim, int(so.size()));
    tensor out(rd, int(so.size()), so.data());
    cb_status s = matmul(a.view(), b.view(), out.view(), error);
    ASSERT_EQ(s, CB_OK) << error;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < m; ++j) {
            long double acc = 0;
            for (std::int64_t p = 0; p < k; ++p) acc += (long double)get(a, i * k + p) * get(b, p * m + j);
            double want = rd == CB_DTYPE_BOOL ? double(acc != 0) : wrap_to(rd, acc);
            EXPECT_NEAR(get(out, i * m + j), want, 1e-6 * std::max(1.0L, std::fabs(acc)))
                << dtype_name(da) << "@" << dtype_name(db) << " at " << i << "," << j;
        }
}

}  // namespace

TEST(Matmul, ShapesAndDtypes) {
    for (auto d : all_dtypes) {
        check(d, d, {5, 7}, {7, 3});
        check(d, d, {7}, {7, 4});
        check(d, d, {5, 7}, {7});
        check(d, d, {9}, {9});
        check(d, d, {1, 1}, {1, 1});
        check(d, d, {3, 0}, {0, 2});  // k == 0: zeros
    }
    check(CB_DTYPE_INT8, CB_DTYPE_UINT8, {2, 3}, {3});        // int16, as numpy
    check(CB_DTYPE_INT32, CB_DTYPE_FLOAT32, {4, 6}, {6, 5});  // float64
    check(CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT32, {130, 70}, {70, 90});
    check(CB_DTYPE_INT8, CB_DTYPE_INT8, {40, 50}, {50, 30});  // wraps
}

TEST(Matmul, Errors) {
    std::string error;
    tensor a(CB_DTYPE_FLOAT64, {2, 3}), b(CB_DTYPE_FLOAT64, {4}), o(CB_DTYPE_FLOAT64, {2});
    cb_status s = matmul(a.view(), b.view(), o.view(), error);
    EXPECT_EQ(s, CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error,
              "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
              "(n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)");
    tensor sc(CB_DTYPE_FLOAT64, {});
    EXPECT_EQ(matmul(sc.view(), b.view(), o.view(), error), CB_ERR_INVALID_ARGUMENT);
    tensor c(CB_DTYPE_FLOAT64, {2, 2, 2}), c3(CB_DTYPE_FLOAT64, {3, 2, 2}), v(CB_DTYPE_FLOAT64, {2});
    EXPECT_EQ(matmul(c.view(), c.view(), o.view(), error), CB_ERR_INVALID_ARGUMENT);   // output not (2,2,2)
    EXPECT_EQ(matmul(c.view(), c3.view(), c.view(), error), CB_ERR_INVALID_ARGUMENT);  // stacks 2 and 3
    EXPECT_EQ(matmul(c.view(), v.view(), o.view(), error), CB_ERR_INVALID_ARGUMENT);   // a stack and a vector
    tensor a2(CB_DTYPE_FLOAT64, {2, 3}), b2(CB_DTYPE_FLOAT64, {3, 2}), wrong(CB_DTYPE_FLOAT32, {2, 2});
    EXPECT_EQ(matmul(a2.view(), b2.view(), wrong.view(), error), CB_ERR_INVALID_ARGUMENT);
}

// Stacks broadcast over their leading dims as numpy's: a (3,1,4,5) stack times a (2,5,6) one,
// read through a transposed view, gives (3,2,4,6); every matrix against the naive product.
TEST(Matmul, StacksBroadcastOverLeadingDims) {
    std::string error;
    for (cb_dtype d : {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32, CB_DTYPE_FLOAT16}) {
        tensor a = random_tensor(d, {3, 1, 4, 5}, 3);
        tensor bt = random_tensor(d, {2, 6, 5}, 4);  // stored (stack, m, k); read as (stack, k, m)
        tensor_view b = bt.view();
        std::swap(b.shape[1], b.shape[2]);
        std::swap(b.strides[1], b.strides[2]);
        cb_dtype rd{};
        shape_t shape;
        ASSERT_EQ(plan_matmul(a.view(), b, rd, shape, error), CB_OK) << error;
        ASSERT_EQ(shape_string(shape.ndim, shape.dims), "(3,2,4,6)");
        tensor out(rd, {3, 2, 4, 6});
        ASSERT_EQ(matmul(a.view(), b, out.view(), error), CB_OK) << error;
        for (int s0 = 0; s0 < 3; ++s0)
            for (int s1 = 0; s1 < 2; ++s1)
                for (int i = 0; i < 4; ++i)
                    for (int j = 0; j < 6; ++j) {
                        long double acc = 0;
                        for (int p = 0; p < 5; ++p)
                            acc += (long double)get(a, (s0 * 4 + i) * 5 + p) * get(bt, (s1 * 6 + j) * 5 + p);
                        const double tol = d == CB_DTYPE_FLOAT16 ? 1e-2 : 1e-6;
                        EXPECT_NEAR(get(out, ((s0 * 2 + s1) * 4 + i) * 6 + j), wrap_to(rd, acc),
                                    tol * std::max(1.0L, std::fabs(acc)))
                            << dtype_name(d) << " stack " << s0 << "," << s1 << " at " << i << "," << j;
                    }
    }
    tensor e(CB_DTYPE_FLOAT32, {0, 3, 3}), eo(CB_DTYPE_FLOAT32, {0, 3, 3});  // an empty stack
    EXPECT_EQ(matmul(e.view(), e.view(), eo.view(), error), CB_OK) << error;
}

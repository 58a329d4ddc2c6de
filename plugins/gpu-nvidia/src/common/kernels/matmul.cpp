#include "common/kernels/matmul.hpp"

#include <algorithm>
#include <string>

#include <cblas.h>

#include "common/kernels/elementwise.hpp"
#include "common/kernels/functors.hpp"
#include "common/kernels/promotion.hpp"
#include "common/kernels/tensor.hpp"

namespace cudabridge::nv::kernels {

namespace {

constexpr const char* k_signature = "(n?,k),(k,m?)->(n?,m?)";

struct dims {
    std::int64_t n, k, kb, m;
};

dims core_dims(const tensor_view& a, const tensor_view& b) {
    dims d{};
    d.n = a.ndim >= 2 ? a.shape[a.ndim - 2] : 1;
    d.k = a.shape[a.ndim - 1];
    d.kb = b.ndim >= 2 ? b.shape[b.ndim - 2] : b.shape[0];
    d.m = b.ndim >= 2 ? b.shape[b.ndim - 1] : 1;
    return d;
}

// The leading dims of a stacked operand, as a view of their own (for broadcasting them).
tensor_view batch_dims(const tensor_view& t) {
    tensor_view v = t;
    v.ndim = t.ndim - 2;
    return v;
}

template <class T>
void int_matmul(const T* a, const T* b, T* c, const dims& d, engine& eng) {
    eng.parallel_for(d.n, std::max<std::int64_t>(1, (1 << 14) / std::max<std::int64_t>(1, d.k * d.m)),
                     [&](std::int64_t r0, std::int64_t r1) {
                         for (std::int64_t i = r0; i < r1; ++i) {
                             T* __restrict ci = c + i * d.m;
                             for (std::int64_t j = 0; j < d.m; ++j) ci[j] = T(0);
                             for (std::int64_t p = 0; p < d.k; ++p) {
                                 const T aip = a[i * d.k + p];
                                 const T* __restrict bp = b + p * d.m;
                                 for (std::int64_t j = 0; j < d.m; ++j)
                                     ci[j] = fn::add{}(ci[j], fn::multiply{}(aip, bp[j]));
                             }
                         }
                     });
}

}  // namespace

cb_status plan_matmul(const tensor_view& a, const tensor_view& b, cb_dtype& dtype, shape_t& shape, std::string& error) {
    if (!is_valid_dtype(a.dtype) || !is_valid_dtype(b.dtype))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "matmul: invalid dtype");
    const tensor_view* ops[2] = {&a, &b};
    for (int i = 0; i < 2; ++i) {
        if (ops[i]->ndim < 1)
            return fail(error, CB_ERR_INVALID_ARGUMENT,
                        "matmul: Input operand " + std::to_string(i) +
                            " does not have enough dimensions (has 0, gufunc core with signature " + k_signature +
                            " requires 1)");
    }
    const bool stacked = is_stacked(a, b);
    if (stacked && (a.ndim < 2 || b.ndim < 2))
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    "matmul: with a stacked operand both must be at least 2-D (a vector is a 1 x k or k x 1 matrix)");
    shape = {};
    if (stacked)
        if (cb_status s = broadcast_shapes(batch_dims(a), batch_dims(b), shape, error); s != CB_OK) return s;
    dims d = core_dims(a, b);
    if (d.k != d.kb)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature " +
                        std::string(k_signature) + " (size " + std::to_string(d.kb) + " is different from " +
                        std::to_string(d.k) + ")");
    dtype = promote(a.dtype, b.dtype);
    if (a.ndim >= 2) shape.dims[shape.ndim++] = d.n;
    if (b.ndim >= 2) shape.dims[shape.ndim++] = d.m;
    return CB_OK;
}

bool is_stacked(const tensor_view& a, const tensor_view& b) { return a.ndim > 2 || b.ndim > 2; }

shape_t stack_shape(const tensor_view& out) {
    shape_t batch;
    batch.ndim = out.ndim - 2;
    for (int i = 0; i < batch.ndim; ++i) batch.dims[i] = out.shape[i];
    return batch;
}

std::int64_t stack_size(const shape_t& batch) {
    std::int64_t n = 1;
    for (int i = 0; i < batch.ndim; ++i) n *= batch.dims[i];
    return n;
}

tensor_view matrix_of(const tensor_view& t, const shape_t& batch, std::int64_t index) {
    const tensor_view stretched = broadcast_to(batch_dims(t), batch);  // stride 0 where t repeats
    std::int64_t offset = 0;
    for (int i = batch.ndim - 1; i >= 0; --i) {
        offset += (index % batch.dims[i]) * stretched.strides[i];
        index /= batch.dims[i];
    }
    tensor_view m = t;
    m.ndim = 2;
    for (int i = 0; i < 2; ++i) {
        m.shape[i] = t.shape[t.ndim - 2 + i];
        m.strides[i] = t.strides[t.ndim - 2 + i];
    }
    m.data = static_cast<char*>(t.data) + offset * static_cast<std::int64_t>(dtype_size(t.dtype));
    return m;
}

namespace {

// One product of 1-D or 2-D operands (out checked by the caller).
cb_status matrix_product(const tensor_view& a, const tensor_view& b, const tensor_view& out, cb_dtype dtype,
                         std::string& error, engine& eng) {
    dims d = core_dims(a, b);
    if (d.n == 0 || d.m == 0) return CB_OK;
    // BLAS and the loop want contiguous operands of the compute dtype: convert once if needed.
    // float16 multiplies as float32 and is rounded once (numpy's half matmul sums in float).
    const cb_dtype work = dtype == CB_DTYPE_FLOAT16 ? CB_DTYPE_FLOAT32 : dtype;
    tensor ta, tb, staged;
    const void* pa = a.data;
    const void* pb = b.data;
    void* po = out.data;
    if (work != dtype) {
        staged = tensor(work, out.ndim, out.shape);
        po = staged.data();
    }
    if (a.dtype != work || !is_contiguous(a)) {
        ta = tensor::uninitialized(work, a.ndim, a.shape);
        (void)cast(a, ta.view(), error, eng);  // same shape: cannot fail
        pa = ta.data();
    }
    if (b.dtype != work || !is_contiguous(b)) {
        tb = tensor::uninitialized(work, b.ndim, b.shape);
        (void)cast(b, tb.view(), error, eng);
        pb = tb.data();
    }
    const int n = static_cast<int>(d.n), m = static_cast<int>(d.m), k = static_cast<int>(d.k);
    const int lda = std::max(k, 1), ldb = std::max(m, 1), ldc = std::max(m, 1);
    if (work == CB_DTYPE_FLOAT32) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m, k, 1.0f, static_cast<const float*>(pa), lda,
                    static_cast<const float*>(pb), ldb, 0.0f, static_cast<float*>(po), ldc);
    } else if (work == CB_DTYPE_FLOAT64) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m, k, 1.0, static_cast<const double*>(pa), lda,
                    static_cast<const double*>(pb), ldb, 0.0, static_cast<double*>(po), ldc);
    } else {
        dispatch<false>(work, [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (!std::is_floating_point_v<T>)
                int_matmul<T>(static_cast<const T*>(pa), static_cast<const T*>(pb), static_cast<T*>(po), d, eng);
        });
    }
    if (work != dtype) return cast(staged.view(), out, error, eng);
    return CB_OK;
}

}  // namespace

cb_status matmul(const tensor_view& a, const tensor_view& b, const tensor_view& out, std::string& error, engine& eng) {
    cb_dtype dtype{};
    shape_t shape;
    if (cb_status s = plan_matmul(a, b, dtype, shape, error); s != CB_OK) return s;
    bool shape_ok = out.ndim == shape.ndim;
    for (int i = 0; shape_ok && i < shape.ndim; ++i) shape_ok = out.shape[i] == shape.dims[i];
    if (out.dtype != dtype || !shape_ok || !is_contiguous(out))
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string("matmul: output must be a contiguous ") + dtype_name(dtype) + " array of shape " +
                        shape_string(shape.ndim, shape.dims));
    if (!is_stacked(a, b)) return matrix_product(a, b, out, dtype, error, eng);
    // One product per matrix, in turn: BLAS spreads each over the cores itself, as numpy's
    // matmul loop does.
    const shape_t batch = stack_shape(out);
    for (std::int64_t i = 0, n = stack_size(batch); i < n; ++i)
        if (cb_status s = matrix_product(matrix_of(a, batch, i), matrix_of(b, batch, i), matrix_of(out, batch, i),
                                         dtype, error, eng);
            s != CB_OK)
            return s;
    return CB_OK;
}

}  // namespace cudabridge::nv::kernels

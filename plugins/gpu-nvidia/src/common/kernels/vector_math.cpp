#include "common/kernels/vector_math.hpp"

#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#if defined(CB_NV_HAVE_LIBMVEC) && defined(__x86_64__)
// The ops with libmvec variants: X(op, libm's name).
// clang-format off
#define CB_NV_LIBMVEC(X) \
    X(exp, exp) X(log, log) X(sin, sin) X(cos, cos) X(exp2, exp2) X(expm1, expm1) X(log2, log2) X(log10, log10) \
    X(log1p, log1p) X(cbrt, cbrt) X(tan, tan) X(arcsin, asin) X(arccos, acos) X(arctan, atan) X(sinh, sinh) \
    X(cosh, cosh) X(tanh, tanh) X(arcsinh, asinh) X(arccosh, acosh) X(arctanh, atanh)
// clang-format on

// glibc's libmvec, named by the vector function ABI: _ZGV + ISA (b SSE, d AVX2, e AVX-512) + N +
// lanes + v (one vector argument) + libm's name. glibc 2.35 added the whole set in every ISA.
extern "C" {
#define CB_NV_DECLARE(OP, NAME)         \
    __m128 _ZGVbN4v_##NAME##f(__m128);  \
    __m128d _ZGVbN2v_##NAME(__m128d);   \
    __m256 _ZGVdN8v_##NAME##f(__m256);  \
    __m256d _ZGVdN4v_##NAME(__m256d);   \
    __m512 _ZGVeN16v_##NAME##f(__m512); \
    __m512d _ZGVeN8v_##NAME(__m512d);
CB_NV_LIBMVEC(CB_NV_DECLARE)
#undef CB_NV_DECLARE
// Two vector arguments (vv): pow and atan2.
#define CB_NV_DECLARE2(OP, NAME)                 \
    __m128 _ZGVbN4vv_##NAME##f(__m128, __m128);  \
    __m128d _ZGVbN2vv_##NAME(__m128d, __m128d);  \
    __m256 _ZGVdN8vv_##NAME##f(__m256, __m256);  \
    __m256d _ZGVdN4vv_##NAME(__m256d, __m256d);  \
    __m512 _ZGVeN16vv_##NAME##f(__m512, __m512); \
    __m512d _ZGVeN8vv_##NAME(__m512d, __m512d);
CB_NV_DECLARE2(power, pow)
CB_NV_DECLARE2(arctan2, atan2)
#undef CB_NV_DECLARE2
}
#endif

namespace cudabridge::nv::kernels::vector_math {
namespace {

#if defined(__x86_64__)

// AVX-512 libmvec rows run 2-3x faster than AVX2 where the function is compute-bound (asinh,
// cbrt); memory-bound ones (exp) run the same.
const bool has_avx512 = __builtin_cpu_supports("avx512f");
const bool has_avx2 = __builtin_cpu_supports("avx2");
const bool has_avx = __builtin_cpu_supports("avx");
const bool has_sse41 = __builtin_cpu_supports("sse4.1");

// ---- floor, ceil, trunc: the rounding instructions, exact ---------------------------------------

bool is_rounding(unary_op f) {
    return f == unary_op::floor || f == unary_op::ceil || f == unary_op::trunc || f == unary_op::rint;
}

// rint rounds as the current mode says (half to even by default), as std::rint.
constexpr int rounding_of(unary_op f) {
    return (f == unary_op::floor  ? _MM_FROUND_TO_NEG_INF
            : f == unary_op::ceil ? _MM_FROUND_TO_POS_INF
            : f == unary_op::rint ? _MM_FROUND_CUR_DIRECTION
                                  : _MM_FROUND_TO_ZERO) |
           _MM_FROUND_NO_EXC;
}

template <class T>
T round_one(unary_op f, T x) {
    return f == unary_op::floor  ? std::floor(x)
           : f == unary_op::ceil ? std::ceil(x)
           : f == unary_op::rint ? std::rint(x)
                                 : std::trunc(x);
}

template <int Mode>
__attribute__((target("avx"))) void round_avx(unary_op f, const float* in, float* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, _mm256_round_ps(_mm256_loadu_ps(in + i), Mode));
    for (; i < n; ++i) out[i] = round_one(f, in[i]);
}

template <int Mode>
__attribute__((target("avx"))) void round_avx(unary_op f, const double* in, double* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(out + i, _mm256_round_pd(_mm256_loadu_pd(in + i), Mode));
    for (; i < n; ++i) out[i] = round_one(f, in[i]);
}

template <int Mode>
__attribute__((target("sse4.1"))) void round_sse41(unary_op f, const float* in, float* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, _mm_round_ps(_mm_loadu_ps(in + i), Mode));
    for (; i < n; ++i) out[i] = round_one(f, in[i]);
}

template <int Mode>
__attribute__((target("sse4.1"))) void round_sse41(unary_op f, const double* in, double* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 2 <= n; i += 2) _mm_storeu_pd(out + i, _mm_round_pd(_mm_loadu_pd(in + i), Mode));
    for (; i < n; ++i) out[i] = round_one(f, in[i]);
}

template <int Mode, class T>
bool round_rows(unary_op f, const T* in, T* out, std::int64_t n) {
    if (has_avx)
        round_avx<Mode>(f, in, out, n);
    else if (has_sse41)
        round_sse41<Mode>(f, in, out, n);
    else
        return false;
    return true;
}

template <class T>
bool rounding_row(unary_op f, const T* in, T* out, std::int64_t n) {
    switch (rounding_of(f)) {
    case rounding_of(unary_op::floor):
        return round_rows<rounding_of(unary_op::floor)>(f, in, out, n);
    case rounding_of(unary_op::ceil):
        return round_rows<rounding_of(unary_op::ceil)>(f, in, out, n);
    case rounding_of(unary_op::rint):
        return round_rows<rounding_of(unary_op::rint)>(f, in, out, n);
    default:
        return round_rows<rounding_of(unary_op::trunc)>(f, in, out, n);
    }
}

#endif

#if defined(CB_NV_HAVE_LIBMVEC) && defined(__x86_64__)

// ---- the libmvec functions --------------------------------------------------------------------

// One op's variants; the lanes past the last whole vector go through libm one at a time.
struct variants {
    unary_op op;
    float (*scalar_f)(float);
    double (*scalar_d)(double);
    __m128 (*sse_f)(__m128);
    __m128d (*sse_d)(__m128d);
    __m256 (*avx2_f)(__m256);
    __m256d (*avx2_d)(__m256d);
    __m512 (*avx512_f)(__m512);
    __m512d (*avx512_d)(__m512d);
};

#define CB_NV_ENTRY(OP, NAME)                                                                                       \
    {unary_op::OP,    ::NAME##f,           ::NAME,         _ZGVbN4v_##NAME##f, _ZGVbN2v_##NAME, _ZGVdN8v_##NAME##f, \
     _ZGVdN4v_##NAME, _ZGVeN16v_##NAME##f, _ZGVeN8v_##NAME},
const variants table[] = {CB_NV_LIBMVEC(CB_NV_ENTRY)};
#undef CB_NV_ENTRY

const variants* variants_of(unary_op op) {
    for (const variants& v : table)
        if (v.op == op) return &v;
    return nullptr;
}

__attribute__((target("avx512f"))) void row_avx512(const variants& v, const float* in, float* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, v.avx512_f(_mm512_loadu_ps(in + i)));
    for (; i < n; ++i) out[i] = v.scalar_f(in[i]);
}

__attribute__((target("avx512f"))) void row_avx512(const variants& v, const double* in, double* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(out + i, v.avx512_d(_mm512_loadu_pd(in + i)));
    for (; i < n; ++i) out[i] = v.scalar_d(in[i]);
}

__attribute__((target("avx2"))) void row_avx2(const variants& v, const float* in, float* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, v.avx2_f(_mm256_loadu_ps(in + i)));
    for (; i < n; ++i) out[i] = v.scalar_f(in[i]);
}

__attribute__((target("avx2"))) void row_avx2(const variants& v, const double* in, double* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(out + i, v.avx2_d(_mm256_loadu_pd(in + i)));
    for (; i < n; ++i) out[i] = v.scalar_d(in[i]);
}

void row_sse(const variants& v, const float* in, float* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, v.sse_f(_mm_loadu_ps(in + i)));
    for (; i < n; ++i) out[i] = v.scalar_f(in[i]);
}

void row_sse(const variants& v, const double* in, double* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 2 <= n; i += 2) _mm_storeu_pd(out + i, v.sse_d(_mm_loadu_pd(in + i)));
    for (; i < n; ++i) out[i] = v.scalar_d(in[i]);
}

template <class T>
bool library_row(unary_op f, const T* in, T* out, std::int64_t n) {
    const variants* v = variants_of(f);
    if (!v) return false;
    if (has_avx512)
        row_avx512(*v, in, out, n);
    else if (has_avx2)
        row_avx2(*v, in, out, n);
    else
        row_sse(*v, in, out, n);
    return true;
}

// ---- pow and atan2 ----------------------------------------------------------------------------

struct variants2 {
    binary_op op;
    float (*scalar_f)(float, float);
    double (*scalar_d)(double, double);
    __m128 (*sse_f)(__m128, __m128);
    __m128d (*sse_d)(__m128d, __m128d);
    __m256 (*avx2_f)(__m256, __m256);
    __m256d (*avx2_d)(__m256d, __m256d);
    __m512 (*avx512_f)(__m512, __m512);
    __m512d (*avx512_d)(__m512d, __m512d);
};

#define CB_NV_ENTRY2(OP, NAME)                                                                        \
    {                                                                                                 \
        binary_op::OP, ::NAME##f, ::NAME, _ZGVbN4vv_##NAME##f, _ZGVbN2vv_##NAME, _ZGVdN8vv_##NAME##f, \
            _ZGVdN4vv_##NAME, _ZGVeN16vv_##NAME##f, _ZGVeN8vv_##NAME                                  \
    }
const variants2 table2[] = {CB_NV_ENTRY2(power, pow), CB_NV_ENTRY2(arctan2, atan2)};
#undef CB_NV_ENTRY2

// A vector of a[i..] (sa == 1) or of the scalar a[0] in every lane (sa == 0).
__attribute__((target("avx512f"))) __m512 lanes_avx512(const float* a, std::int64_t sa, std::int64_t i) {
    return sa ? _mm512_loadu_ps(a + i) : _mm512_set1_ps(*a);
}
__attribute__((target("avx512f"))) __m512d lanes_avx512(const double* a, std::int64_t sa, std::int64_t i) {
    return sa ? _mm512_loadu_pd(a + i) : _mm512_set1_pd(*a);
}
__attribute__((target("avx2"))) __m256 lanes_avx2(const float* a, std::int64_t sa, std::int64_t i) {
    return sa ? _mm256_loadu_ps(a + i) : _mm256_set1_ps(*a);
}
__attribute__((target("avx2"))) __m256d lanes_avx2(const double* a, std::int64_t sa, std::int64_t i) {
    return sa ? _mm256_loadu_pd(a + i) : _mm256_set1_pd(*a);
}
__m128 lanes_sse(const float* a, std::int64_t sa, std::int64_t i) { return sa ? _mm_loadu_ps(a + i) : _mm_set1_ps(*a); }
__m128d lanes_sse(const double* a, std::int64_t sa, std::int64_t i) {
    return sa ? _mm_loadu_pd(a + i) : _mm_set1_pd(*a);
}

__attribute__((target("avx512f"))) void row2_avx512(const variants2& v, const float* a, std::int64_t sa, const float* b,
                                                    std::int64_t sb, float* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, v.avx512_f(lanes_avx512(a, sa, i), lanes_avx512(b, sb, i)));
    for (; i < n; ++i) out[i] = v.scalar_f(a[i * sa], b[i * sb]);
}

__attribute__((target("avx512f"))) void row2_avx512(const variants2& v, const double* a, std::int64_t sa,
                                                    const double* b, std::int64_t sb, double* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(out + i, v.avx512_d(lanes_avx512(a, sa, i), lanes_avx512(b, sb, i)));
    for (; i < n; ++i) out[i] = v.scalar_d(a[i * sa], b[i * sb]);
}

__attribute__((target("avx2"))) void row2_avx2(const variants2& v, const float* a, std::int64_t sa, const float* b,
                                               std::int64_t sb, float* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, v.avx2_f(lanes_avx2(a, sa, i), lanes_avx2(b, sb, i)));
    for (; i < n; ++i) out[i] = v.scalar_f(a[i * sa], b[i * sb]);
}

__attribute__((target("avx2"))) void row2_avx2(const variants2& v, const double* a, std::int64_t sa, const double* b,
                                               std::int64_t sb, double* out, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(out + i, v.avx2_d(lanes_avx2(a, sa, i), lanes_avx2(b, sb, i)));
    for (; i < n; ++i) out[i] = v.scalar_d(a[i * sa], b[i * sb]);
}

void row2_sse(const variants2& v, const float* a, std::int64_t sa, const float* b, std::int64_t sb, float* out,
              std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, v.sse_f(lanes_sse(a, sa, i), lanes_sse(b, sb, i)));
    for (; i < n; ++i) out[i] = v.scalar_f(a[i * sa], b[i * sb]);
}

void row2_sse(const variants2& v, const double* a, std::int64_t sa, const double* b, std::int64_t sb, double* out,
              std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 2 <= n; i += 2) _mm_storeu_pd(out + i, v.sse_d(lanes_sse(a, sa, i), lanes_sse(b, sb, i)));
    for (; i < n; ++i) out[i] = v.scalar_d(a[i * sa], b[i * sb]);
}

template <class T>
bool library_row2(binary_op f, const T* a, std::int64_t sa, const T* b, std::int64_t sb, T* out, std::int64_t n) {
    const variants2* found = nullptr;
    for (const variants2& e : table2)
        if (e.op == f) found = &e;
    if (!found || sa < 0 || sa > 1 || sb < 0 || sb > 1) return false;
    const variants2& v = *found;
    if (has_avx512)
        row2_avx512(v, a, sa, b, sb, out, n);
    else if (has_avx2)
        row2_avx2(v, a, sa, b, sb, out, n);
    else
        row2_sse(v, a, sa, b, sb, out, n);
    return true;
}

#else

template <class T>
bool library_row(unary_op, const T*, T*, std::int64_t) {
    return false;
}

template <class T>
bool library_row2(binary_op, const T*, std::int64_t, const T*, std::int64_t, T*, std::int64_t) {
    return false;
}

#endif

template <class T>
bool any_row(unary_op f, const T* in, T* out, std::int64_t n) {
#if defined(__x86_64__)
    if (is_rounding(f)) return rounding_row(f, in, out, n);
#endif
    return library_row(f, in, out, n);  // false elsewhere
}

}  // namespace

bool row(unary_op f, const float* in, float* out, std::int64_t n) { return any_row(f, in, out, n); }
bool row(unary_op f, const double* in, double* out, std::int64_t n) { return any_row(f, in, out, n); }

bool row2(binary_op f, const float* a, std::int64_t sa, const float* b, std::int64_t sb, float* out, std::int64_t n) {
    return library_row2(f, a, sa, b, sb, out, n);
}
bool row2(binary_op f, const double* a, std::int64_t sa, const double* b, std::int64_t sb, double* out,
          std::int64_t n) {
    return library_row2(f, a, sa, b, sb, out, n);
}

}  // namespace cudabridge::nv::kernels::vector_math

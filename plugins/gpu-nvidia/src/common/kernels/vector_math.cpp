#include "common/kernels/vector_math.hpp"

#include <cmath>

#if defined(CB_NV_HAVE_LIBMVEC) && defined(__x86_64__)
#include <immintrin.h>

// glibc's libmvec, named by the vector function ABI: _ZGV + ISA (b SSE, d AVX2) + N + lanes + v.
extern "C" {
__m128 _ZGVbN4v_expf(__m128);
__m128 _ZGVbN4v_logf(__m128);
__m128 _ZGVbN4v_sinf(__m128);
__m128 _ZGVbN4v_cosf(__m128);
__m128d _ZGVbN2v_exp(__m128d);
__m128d _ZGVbN2v_log(__m128d);
__m128d _ZGVbN2v_sin(__m128d);
__m128d _ZGVbN2v_cos(__m128d);
__m256 _ZGVdN8v_expf(__m256);
__m256 _ZGVdN8v_logf(__m256);
__m256 _ZGVdN8v_sinf(__m256);
__m256 _ZGVdN8v_cosf(__m256);
__m256d _ZGVdN4v_exp(__m256d);
__m256d _ZGVdN4v_log(__m256d);
__m256d _ZGVdN4v_sin(__m256d);
__m256d _ZGVdN4v_cos(__m256d);
}
#endif

namespace cudabridge::nv::kernels::vector_math {
namespace {

template <class T>
T scalar(function f, T x) {
    switch (f) {
    case function::exp:
        return std::exp(x);
    case function::log:
        return std::log(x);
    case function::sin:
        return std::sin(x);
    case function::cos:
        return std::cos(x);
    }
    return x;
}

// The lanes past the last whole vector, one at a time.
template <class T>
void tail(function f, const T* in, T* out, std::int64_t from, std::int64_t n) {
    for (std::int64_t i = from; i < n; ++i) out[i] = scalar(f, in[i]);
}

#if defined(CB_NV_HAVE_LIBMVEC) && defined(__x86_64__)

const bool has_avx2 = __builtin_cpu_supports("avx2");

__attribute__((target("avx2"))) void row_avx2(function f, const float* in, float* out, std::int64_t n) {
    using fn_t = __m256 (*)(__m256);
    const fn_t v = f == function::exp   ? _ZGVdN8v_expf
                   : f == function::log ? _ZGVdN8v_logf
                   : f == function::sin ? _ZGVdN8v_sinf
                                        : _ZGVdN8v_cosf;
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, v(_mm256_loadu_ps(in + i)));
    tail(f, in, out, i, n);
}

__attribute__((target("avx2"))) void row_avx2(function f, const double* in, double* out, std::int64_t n) {
    using fn_t = __m256d (*)(__m256d);
    const fn_t v = f == function::exp   ? _ZGVdN4v_exp
                   : f == function::log ? _ZGVdN4v_log
                   : f == function::sin ? _ZGVdN4v_sin
                                        : _ZGVdN4v_cos;
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(out + i, v(_mm256_loadu_pd(in + i)));
    tail(f, in, out, i, n);
}

void row_sse(function f, const float* in, float* out, std::int64_t n) {
    using fn_t = __m128 (*)(__m128);
    const fn_t v = f == function::exp   ? _ZGVbN4v_expf
                   : f == function::log ? _ZGVbN4v_logf
                   : f == function::sin ? _ZGVbN4v_sinf
                                        : _ZGVbN4v_cosf;
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, v(_mm_loadu_ps(in + i)));
    tail(f, in, out, i, n);
}

void row_sse(function f, const double* in, double* out, std::int64_t n) {
    using fn_t = __m128d (*)(__m128d);
    const fn_t v = f == function::exp   ? _ZGVbN2v_exp
                   : f == function::log ? _ZGVbN2v_log
                   : f == function::sin ? _ZGVbN2v_sin
                                        : _ZGVbN2v_cos;
    std::int64_t i = 0;
    for (; i + 2 <= n; i += 2) _mm_storeu_pd(out + i, v(_mm_loadu_pd(in + i)));
    tail(f, in, out, i, n);
}

template <class T>
bool any_row(function f, const T* in, T* out, std::int64_t n) {
    if (has_avx2)
        row_avx2(f, in, out, n);
    else
        row_sse(f, in, out, n);
    return true;
}

#else

template <class T>
bool any_row(function, const T*, T*, std::int64_t) {
    return false;
}

#endif

}  // namespace

bool row(function f, const float* in, float* out, std::int64_t n) { return any_row(f, in, out, n); }
bool row(function f, const double* in, double* out, std::int64_t n) { return any_row(f, in, out, n); }

}  // namespace cudabridge::nv::kernels::vector_math

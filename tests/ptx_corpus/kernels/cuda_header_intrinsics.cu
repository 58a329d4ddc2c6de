// What CUDA's own headers put into ordinary kernels: cuda_fp16.h's conversions are inline asm
// that declares registers inside a { } block (`.reg .f16 low, high;`); double sin and cos of a
// large argument call a slow path that nvcc declares before the kernel and defines after it, and
// that adds with carry chains; __ffs and __clz become bfind; assert() calls __assertfail; and
// __hadd2, __hmul2, __hfma2 work on packed half pairs (.f16x2).
#include <cassert>
#include <cuda_fp16.h>

extern "C" __global__ void header_intrinsics(const double* x, const __half2* h, const unsigned* u, double* trig,
                                             float* halves, int* bits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    trig[i] = sin(x[i]) + 2.0 * cos(x[i]);
    halves[2 * i] = __low2float(h[i]);
    halves[2 * i + 1] = __high2float(h[i]);
    bits[2 * i] = __ffs(u[i]);
    bits[2 * i + 1] = __clz(u[i]) + 64 * __ffsll(static_cast<long long>(u[i]) << 20);
}

// Scales non-negative values; a negative one fails the assert, and with it the launch.
extern "C" __global__ void checked_scale(float* v, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(v[i] >= 0.0f);
    v[i] *= factor;
}

// Packed half pairs: out[4i..4i+3] = a+b, a*b, fma(a, b, c) saturated to [0, 1], max(a, b).
extern "C" __global__ void half2_math(const __half2* a, const __half2* b, const __half2* c, __half2* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[4 * i] = __hadd2(a[i], b[i]);
    out[4 * i + 1] = __hmul2(a[i], b[i]);
    out[4 * i + 2] = __hfma2_sat(a[i], b[i], c[i]);
    out[4 * i + 3] = __hmax2(a[i], b[i]);
}

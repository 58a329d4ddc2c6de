// 16-bit atomics: atomicAdd on __half and __half2 (atom.add.noftz.f16, .f16x2), on
// __nv_bfloat16 (a compare-and-swap loop on sm_75) and atomicCAS on an unsigned short
// (atom.cas.b16), each thread adding small exact values, so that every order of the adds gives
// the same sums; and the packed-half compares cuda_fp16.h writes with set.*.f16x2.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void atomics16(const float* v, __half* h, __half2* h2, __nv_bfloat16* b, unsigned short* ticket,
                                     unsigned short* order, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(h, __float2half(v[i]));
    atomicAdd(h2, __floats2half2_rn(v[i], -2.0f * v[i]));
    atomicAdd(b, __float2bfloat16(v[i]));
    // Take a ticket: increment *ticket with atomicCAS until it is ours.
    unsigned short seen = *ticket, want;
    do {
        want = seen;
        seen = atomicCAS(ticket, want, static_cast<unsigned short>(want + 1));
    } while (seen != want);
    order[want] = 1;
}

extern "C" __global__ void half2_compare(const __half2* a, const __half2* c, unsigned* both, __half2* le, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    both[i] = (__hbeq2(a[i], c[i]) ? 1u : 0u) | (__hblt2(a[i], c[i]) ? 2u : 0u) | (__hbgtu2(a[i], c[i]) ? 4u : 0u);
    le[i] = __hle2(a[i], c[i]);
}

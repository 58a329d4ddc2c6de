// Integer intrinsics nvcc writes as single PTX instructions: bit masks (bmsk, which CUB's
// onesweep radix sort uses through cuda::bitmask), sign/zero extension of a bit field (szext),
// byte and half-word dot products (__dp4a, __dp2a_lo/hi), the n-th set bit (__fns) and the
// byte permutations with a mode (cuda::ptx::prmt_*). Sixteen results per element.
#include <cuda/ptx>

__device__ unsigned szext_clamp_s32(unsigned a, unsigned b) {
    unsigned d;
    asm("szext.clamp.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}

__device__ unsigned szext_wrap_u32(unsigned a, unsigned b) {
    unsigned d;
    asm("szext.wrap.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}

extern "C" __global__ void int_intrinsics(const unsigned* a, const unsigned* b, const int* c, unsigned* out,
                                          int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    int z = c[i];
    unsigned* o = out + 16 * i;
    o[0] = cuda::ptx::bmsk_clamp(x, y);
    o[1] = cuda::ptx::bmsk_wrap(x, y);
    o[2] = szext_clamp_s32(z, y);
    o[3] = szext_wrap_u32(z, y);
    o[4] = __dp4a(x, y, static_cast<unsigned>(z));
    o[5] = __dp4a(static_cast<int>(x), static_cast<int>(y), z);
    o[6] = __dp2a_lo(x, y, static_cast<unsigned>(z));
    o[7] = __dp2a_hi(static_cast<int>(x), static_cast<int>(y), z);
    o[8] = __fns(x, y & 31u, z);
    o[9] = cuda::ptx::prmt_f4e(x, y, static_cast<unsigned>(z));
    o[10] = cuda::ptx::prmt_b4e(x, y, static_cast<unsigned>(z));
    o[11] = cuda::ptx::prmt_rc8(x, y, static_cast<unsigned>(z));
    o[12] = cuda::ptx::prmt_ecl(x, y, static_cast<unsigned>(z));
    o[13] = cuda::ptx::prmt_ecr(x, y, static_cast<unsigned>(z));
    o[14] = cuda::ptx::prmt_rc16(x, y, static_cast<unsigned>(z));
    o[15] = __byte_perm(x, y, static_cast<unsigned>(z));
}

// A scalar video instruction (vadd with a secondary operation, written by inline assembly): one
// the simulated GPU does not run, so loading this module must fail and name it.
extern "C" __global__ void scalar_video(const unsigned* a, const unsigned* b, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned d;
    asm("vadd.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a[i]), "r"(b[i]), "r"(0u));
    out[i] = d;
}

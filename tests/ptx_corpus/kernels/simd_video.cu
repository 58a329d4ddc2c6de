// A SIMD video instruction (__vabsdiffu4 is vabsdiff4): one the simulated GPU does not run, so
// loading this module must fail and name it.
extern "C" __global__ void absdiff_bytes(const unsigned* a, const unsigned* b, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __vabsdiffu4(a[i], b[i]);
}

// Warp shuffles: a sum per warp with __shfl_down_sync (lane 0 writes it), and a butterfly max
// with __shfl_xor_sync that leaves every lane holding its warp's maximum.
#define FULL_MASK 0xffffffffu

extern "C" __global__ void warp_sum(const int* in, int* warp_totals, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(FULL_MASK, v, offset);
    if ((threadIdx.x & 31) == 0 && i < n) warp_totals[i / 32] = v;
}

extern "C" __global__ void warp_max(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : -INFINITY;
    for (int mask = 16; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, mask));
    if (i < n) out[i] = v;
}

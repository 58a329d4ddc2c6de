// A block-wide inclusive scan (Hillis-Steele, double-buffered in shared memory) over blocks of
// 256 ints; the last thread also writes the block's total.
#define BLOCK 256

extern "C" __global__ void inclusive_scan(const int* in, int* out, int* block_totals, int n) {
    __shared__ int buf[2][BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    int src = 0;
    buf[src][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < BLOCK; offset <<= 1) {
        int v = buf[src][t];
        if (t >= offset) v += buf[src][t - offset];
        buf[1 - src][t] = v;
        __syncthreads();
        src = 1 - src;
    }
    if (i < n) out[i] = buf[src][t];
    if (t == BLOCK - 1) block_totals[blockIdx.x] = buf[src][t];
}

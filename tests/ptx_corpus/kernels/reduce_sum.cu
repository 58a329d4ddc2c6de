// A shared-memory tree reduction: each block of 256 threads sums its 256 floats (zeros past n)
// and writes one partial sum per block.
#define BLOCK 256

extern "C" __global__ void reduce_sum(const float* in, float* partial, int n) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// A 256-bin byte histogram: a grid-stride loop counts into shared-memory bins with atomicAdd,
// then each block adds its non-zero bins to the global histogram with atomicAdd.
#define BINS 256

extern "C" __global__ void histogram256(const unsigned char* data, int n, unsigned int* bins) {
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

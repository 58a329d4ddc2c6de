// __syncthreads_count, __syncthreads_and and __syncthreads_or (bar.red.popc / .and / .or): every
// thread of the block gets the block-wide answer. (thrust's and CUB's radix sorts use
// __syncthreads_or.)
__global__ void barrier_votes(const int* values, int* out) {
    const int x = values[blockIdx.x * blockDim.x + threadIdx.x];
    const int above_ten = __syncthreads_count(x > 10);
    const int all_positive = __syncthreads_and(x > 0);
    const int any_large = __syncthreads_or(x > 100);
    out[blockIdx.x * blockDim.x + threadIdx.x] = above_ten * 4 + all_positive * 2 + any_large;
}

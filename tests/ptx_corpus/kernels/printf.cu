// printf from a kernel: every 16th thread prints its block, thread and a float value (%d, %f).
#include <cstdio>

extern "C" __global__ void print_values(const float* values) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 16 == 0) printf("block %d thread %d value %f\n", blockIdx.x, threadIdx.x, values[i]);
}

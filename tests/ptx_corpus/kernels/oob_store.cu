// A store far outside any allocation (1 TiB past the buffer): the launch must fail with an
// illegal-address error, as on a real GPU.
extern "C" __global__ void store_far_out_of_bounds(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i + (1ull << 40) / sizeof(float)] = 1.0f;
}

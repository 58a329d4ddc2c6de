// Dynamic shared memory (extern __shared__), sized by the launch: each block reverses its
// segment of the input (the last, partial segment too).
extern "C" __global__ void reverse_segments(const float* in, float* out, int n) {
    extern __shared__ float segment[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int length = min(static_cast<int>(blockDim.x), n - base);
    if (t < length) segment[t] = in[base + t];
    __syncthreads();
    if (t < length) out[base + t] = segment[length - 1 - t];
}

// A call to a __noinline__ __device__ function that takes a pointer to the caller's local array
// (a .func called with .param arguments, the array in .local memory): a weighted window sum.
#define WINDOW 8

__device__ __noinline__ float weighted_sum(const float* values, int count) {
    float s = 0.0f;
    for (int k = 0; k < count; ++k) s += values[k] * static_cast<float>(k + 1);
    return s;
}

extern "C" __global__ void window_sums(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float window[WINDOW];
    int count = min(WINDOW, n - i);
    for (int k = 0; k < count; ++k) window[k] = in[i + k];
    out[i] = weighted_sum(window, count);
}

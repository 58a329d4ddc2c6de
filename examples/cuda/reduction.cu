// The sum of 1M floats: a shared-memory tree per block, then the same kernel over the partial
// sums, checked against a double-precision host sum.
#include "check.cuh"

#include <cmath>
#include <utility>
#include <vector>

constexpr int BLOCK = 256;

__global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float s[BLOCK];
    const int t = threadIdx.x, i = blockIdx.x * BLOCK * 2 + t;
    float v = i < n ? in[i] : 0.0f;
    if (i + BLOCK < n) v += in[i + BLOCK];
    s[t] = v;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

int main() {
    const int n = 1 << 20;
    std::vector<float> h(n);
    double want = 0;
    for (int i = 0; i < n; ++i) want += h[i] = float((i % 1000) - 500) / 1000.0f;
    // Each pass reads one buffer and writes the other: blocks of a grid run in no set order, so
    // one writing its sum where another still reads would race.
    float *d, *a, *b;
    const int blocks = (n + 2 * BLOCK - 1) / (2 * BLOCK);
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMalloc(&a, blocks * sizeof(float)));
    CHECK(cudaMalloc(&b, blocks * sizeof(float)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    block_sum<<<blocks, BLOCK>>>(d, a, n);
    CHECK(cudaGetLastError());
    int left = blocks;
    while (left > 1) {
        const int next = (left + 2 * BLOCK - 1) / (2 * BLOCK);
        block_sum<<<next, BLOCK>>>(a, b, left);
        CHECK(cudaGetLastError());
        std::swap(a, b);
        left = next;
    }
    float got = 0;
    CHECK(cudaMemcpy(&got, a, sizeof got, cudaMemcpyDeviceToHost));
    if (std::fabs(got - want) > 1e-2 * (1 + std::fabs(want))) {
        std::printf("FAIL: sum is %f, not %f\n", got, want);
        return 1;
    }
    std::printf("reduction: sum of %d floats = %f (host %f), PASS\n", n, got, want);
    return 0;
}

// __constant__ and __device__ variables as CUDA programs use them, through CudaBridge's
// libcudart.so.13 under `cudabridge-cli run`: cudaMemcpyToSymbol / FromSymbol (and their async
// forms), cudaGetSymbolAddress and cudaGetSymbolSize, and the errors CUDA gives for misuse.
#include <cstdio>

#include "expect.cuh"

__constant__ float weights[8];
__device__ float scale = 2.5f;
__device__ unsigned int counter;

// y[i] = scale * sum_k weights[k] * x[i + k]
__global__ void weighted(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = 0; k < 8; ++k) s += weights[k] * x[i + k];
    y[i] = scale * s;
}

__global__ void count(int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counter, 1u);
}

static float expected(const float* w, float sc, const float* x, int i) {
    float s = 0.0f;
    for (int k = 0; k < 8; ++k) s += w[k] * x[i + k];
    return sc * s;
}

int main() {
    const int n = 1000;
    static float hx[n + 8], hy[n];
    for (int i = 0; i < n + 8; ++i) hx[i] = float(i % 17) * 0.25f - 2.0f;
    float *dx = nullptr, *dy = nullptr;
    EXPECT(cudaMalloc(&dx, sizeof hx) == cudaSuccess && cudaMalloc(&dy, sizeof hy) == cudaSuccess);
    EXPECT(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice) == cudaSuccess);

    // The initializer is there before any kernel ran; the size is the declaration's.
    float sc = 0.0f;
    EXPECT(cudaMemcpyFromSymbol(&sc, scale, sizeof sc) == cudaSuccess && sc == 2.5f);
    size_t size = 0;
    EXPECT(cudaGetSymbolSize(&size, weights) == cudaSuccess && size == 8 * sizeof(float));

    float w[8] = {1, -1, 0.5f, 2, 0, 0.25f, -3, 1.5f};
    EXPECT(cudaMemcpyToSymbol(weights, w, sizeof w) == cudaSuccess);
    weighted<<<(n + 127) / 128, 128>>>(dx, dy, n);
    EXPECT(cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < n; ++i) EXPECT(hy[i] == expected(w, 2.5f, hx, i));

    // An offset into the table, and a __device__ variable written by the host.
    w[3] = -7.0f;
    EXPECT(cudaMemcpyToSymbol(weights, &w[3], sizeof(float), 3 * sizeof(float)) == cudaSuccess);
    sc = 0.5f;
    EXPECT(cudaMemcpyToSymbol(scale, &sc, sizeof sc, 0, cudaMemcpyHostToDevice) == cudaSuccess);
    weighted<<<(n + 127) / 128, 128>>>(dx, dy, n);
    EXPECT(cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < n; ++i) EXPECT(hy[i] == expected(w, 0.5f, hx, i));

    // The address serves cudaMemset and kernels' atomics; the async forms order on their stream.
    void* at = nullptr;
    EXPECT(cudaGetSymbolAddress(&at, counter) == cudaSuccess && at != nullptr);
    EXPECT(cudaMemset(at, 0, sizeof(unsigned)) == cudaSuccess);
    count<<<8, 128>>>(1000);
    unsigned c = 0;
    EXPECT(cudaMemcpyFromSymbol(&c, counter, sizeof c) == cudaSuccess && c == 1000);
    cudaStream_t s;
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);
    const unsigned start = 40;
    EXPECT(cudaMemcpyToSymbolAsync(counter, &start, sizeof start, 0, cudaMemcpyHostToDevice, s) == cudaSuccess);
    count<<<1, 64, 0, s>>>(64);
    EXPECT(cudaMemcpyFromSymbolAsync(&c, counter, sizeof c, 0, cudaMemcpyDeviceToHost, s) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess && c == 104);
    EXPECT(cudaStreamDestroy(s) == cudaSuccess);

    // Device to device, both ways.
    EXPECT(cudaMemcpyToSymbol(weights, dx, sizeof w, 0, cudaMemcpyDeviceToDevice) == cudaSuccess);
    EXPECT(cudaMemcpyFromSymbol(dy, weights, sizeof w, 0, cudaMemcpyDeviceToDevice) == cudaSuccess);
    float back[8] = {};
    EXPECT(cudaMemcpy(back, dy, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int k = 0; k < 8; ++k) EXPECT(back[k] == hx[k]);

    // Misuse: past the end, the wrong direction, not a symbol.
    float big[16] = {};
    EXPECT(cudaMemcpyToSymbol(weights, big, sizeof big) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    EXPECT(cudaMemcpyToSymbol(weights, w, sizeof(float), 7 * sizeof(float) + 1) == cudaErrorInvalidValue);
    cudaGetLastError();
    EXPECT(cudaMemcpyToSymbol(weights, w, sizeof w, 0, cudaMemcpyDeviceToHost) == cudaErrorInvalidMemcpyDirection);
    cudaGetLastError();
    EXPECT(cudaMemcpyFromSymbol(w, weights, sizeof w, 0, cudaMemcpyHostToDevice) == cudaErrorInvalidMemcpyDirection);
    cudaGetLastError();
    static float not_a_symbol[8];
    EXPECT(cudaMemcpyToSymbol(not_a_symbol, w, sizeof w) == cudaErrorInvalidSymbol);
    EXPECT(cudaGetSymbolAddress(&at, not_a_symbol) == cudaErrorInvalidSymbol);
    cudaGetLastError();

    cudaFree(dx);
    cudaFree(dy);
    return verdict("symbols");
}

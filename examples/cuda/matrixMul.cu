// C = A x B with 16x16 tiles staged through shared memory, on sizes that are not multiples of the
// tile (so the edge tiles are partly empty), checked against a host product.
#include "check.cuh"

#include <cmath>
#include <vector>

constexpr int TILE = 16;

__global__ void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? A[row * K + k0 + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < K && col < N ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
    const int M = 203, N = 131, K = 157;
    std::vector<float> A(M * K), B(K * N), C(M * N);
    for (int i = 0; i < M * K; ++i) A[i] = float((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < K * N; ++i) B[i] = float((i * 5) % 11) / 11.0f - 0.5f;
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    matrix_mul<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            double want = 0;
            for (int k = 0; k < K; ++k) want += double(A[r * K + k]) * B[k * N + c];
            if (std::fabs(C[r * N + c] - want) > 1e-3) {
                std::printf("FAIL: C[%d][%d] is %f, not %f\n", r, c, C[r * N + c], want);
                return 1;
            }
        }
    std::printf("matrixMul: %dx%d = %dx%d * %dx%d in %.3f ms (device events), PASS\n", M, N, M, K, K, N, ms);
    return 0;
}

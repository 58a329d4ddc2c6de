// A cooperative launch (cudaLaunchCooperativeKernel) with grid-wide barriers: every block writes
// partial sums, waits at grid.sync() for all the others, block 0 adds the partials, another
// grid.sync(), and every thread scales its element by the total; as many blocks as the device
// holds at once (occupancy times multiprocessors, as NVIDIA's samples size such grids). One block
// more is cudaErrorCooperativeLaunchTooLarge; cudaLaunchKernelEx with the cooperative attribute
// is the same launch.
#include "expect.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <vector>

namespace cg = cooperative_groups;

__global__ void normalize(const float* in, float* partial, float* out, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ float sums[256];
    float mine = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n); i += grid.size())
        mine += in[i];
    sums[block.thread_rank()] = mine;
    block.sync();
    if (block.thread_rank() == 0) {
        float s = 0.0f;
        for (unsigned t = 0; t < block.size(); ++t) s += sums[t];
        partial[blockIdx.x] = s;
    }
    grid.sync();
    if (grid.thread_rank() == 0) {
        float total = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
        partial[gridDim.x] = total;
    }
    grid.sync();
    const float total = partial[gridDim.x];
    for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n); i += grid.size())
        out[i] = in[i] / total;
}

int main() {
    int device = 0, cooperative = 0, sms = 0, per_sm = 0;
    EXPECT(cudaGetDevice(&device) == cudaSuccess);
    EXPECT(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device) == cudaSuccess);
    EXPECT(cooperative == 1);
    EXPECT(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
    const int threads = 256;
    EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalize, threads, 0) == cudaSuccess);
    const int blocks = sms * per_sm;
    EXPECT(blocks > 1);

    const int n = 1 << 18;
    std::vector<float> host(n);
    double total = 0.0;
    for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 97 + 1), total += host[i];
    float *in = nullptr, *partial = nullptr, *out = nullptr;
    EXPECT(cudaMalloc(&in, n * sizeof(float)) == cudaSuccess);
    EXPECT(cudaMalloc(&out, n * sizeof(float)) == cudaSuccess);
    EXPECT(cudaMalloc(&partial, (blocks + 1) * sizeof(float)) == cudaSuccess);
    EXPECT(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);

    int count = n;
    void* args[] = {&in, &partial, &out, &count};
    EXPECT(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(normalize), blocks, threads, args) == cudaSuccess);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<float> got(n);
    EXPECT(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += std::abs(got[i] - host[i] / total) > 1e-6 * (host[i] / total) + 1e-9;
    EXPECT(wrong == 0);
    float device_total = 0.0f;
    EXPECT(cudaMemcpy(&device_total, partial + blocks, sizeof device_total, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(std::abs(device_total - total) < 1e-4 * total);

    // Twice more through cudaLaunchKernelEx's cooperative attribute: the same result.
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeCooperative;
    attribute.val.cooperative = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    EXPECT(cudaMemset(out, 0, n * sizeof(float)) == cudaSuccess);
    EXPECT(cudaLaunchKernelEx(&config, normalize, static_cast<const float*>(in), partial, out, n) == cudaSuccess);
    EXPECT(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    wrong = 0;
    for (int i = 0; i < n; ++i) wrong += std::abs(got[i] - host[i] / total) > 1e-6 * (host[i] / total) + 1e-9;
    EXPECT(wrong == 0);

    // More blocks than the device holds at once.
    EXPECT(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(normalize), blocks + 1, threads, args) ==
           cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    return verdict("cooperative");
}

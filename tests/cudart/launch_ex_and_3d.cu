// cudaLaunchKernelEx with attributes that change nothing here, and one it refuses with its reason;
// pitched 3D memory: cudaMalloc3D, cudaMemset3D and cudaMemcpy3D between host and device; peer
// copies.
#include "expect.cuh"

#include <cuda_runtime.h>

#include <vector>

__global__ void add_one(float* p, size_t pitch, int width, int height, int depth) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    for (int z = 0; z < depth; ++z)
        for (int y = 0; y < height; ++y) {
            float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(p) + (size_t(z) * height + y) * pitch);
            row[x] += 1.0f;
        }
}

int main() {
    const int w = 37, h = 5, d = 3;
    cudaPitchedPtr dev{};
    EXPECT(cudaMalloc3D(&dev, make_cudaExtent(w * sizeof(float), h, d)) == cudaSuccess);
    EXPECT(dev.pitch >= w * sizeof(float) && dev.xsize == w * sizeof(float) && dev.ysize == h);
    EXPECT(cudaMemset3D(dev, 0, make_cudaExtent(w * sizeof(float), h, d)) == cudaSuccess);

    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1);
    config.blockDim = dim3(64);
    cudaLaunchAttribute attrs[2]{};
    attrs[0].id = cudaLaunchAttributePriority;
    attrs[0].val.priority = -1;
    attrs[1].id = cudaLaunchAttributeClusterDimension;
    attrs[1].val.clusterDim.x = attrs[1].val.clusterDim.y = attrs[1].val.clusterDim.z = 1;
    config.attrs = attrs;
    config.numAttrs = 2;
    EXPECT(cudaLaunchKernelEx(&config, add_one, static_cast<float*>(dev.ptr), dev.pitch, w, h, d) == cudaSuccess);
    EXPECT(cudaLaunchKernelEx(&config, add_one, static_cast<float*>(dev.ptr), dev.pitch, w, h, d) == cudaSuccess);
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    config.attrs = &cooperative;
    config.numAttrs = 1;
    // The cooperative attribute makes it a cooperative launch (every block resident at once).
    EXPECT(cudaLaunchKernelEx(&config, add_one, static_cast<float*>(dev.ptr), dev.pitch, w, h, d) == cudaSuccess);

    std::vector<float> host(size_t(w) * h * d, -1.0f);
    cudaMemcpy3DParms p{};
    p.srcPtr = dev;
    p.dstPtr = make_cudaPitchedPtr(host.data(), w * sizeof(float), w * sizeof(float), h);
    p.extent = make_cudaExtent(w * sizeof(float), h, d);
    p.kind = cudaMemcpyDeviceToHost;
    EXPECT(cudaMemcpy3D(&p) == cudaSuccess);
    int wrong = 0;
    for (float v : host) wrong += v != 3.0f;
    EXPECT(wrong == 0);
    EXPECT(cudaFree(dev.ptr) == cudaSuccess);

    // Peer copies: eGPUs reach each other through the host only (no peer access); a copy within
    // one device is a device-to-device copy.
    int can = -1;
    EXPECT(cudaDeviceCanAccessPeer(&can, 0, 0) == cudaSuccess && can == 0);
    int *a = nullptr, *b = nullptr, values[4] = {1, 2, 3, 4}, back[4] = {};
    EXPECT(cudaMalloc(&a, sizeof values) == cudaSuccess && cudaMalloc(&b, sizeof values) == cudaSuccess);
    EXPECT(cudaMemcpy(a, values, sizeof values, cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaMemcpyPeer(b, 0, a, 0, sizeof values) == cudaSuccess);
    EXPECT(cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(back[0] == 1 && back[3] == 4);
    EXPECT(cudaMemcpyPeer(b, 0, a, 9, sizeof values) == cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    EXPECT(cudaFree(a) == cudaSuccess && cudaFree(b) == cudaSuccess);
    return verdict("launch_ex_and_3d");
}

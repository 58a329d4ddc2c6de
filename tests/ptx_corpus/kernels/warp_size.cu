// warpSize, which nvcc writes as the PTX constant WARP_SZ: each thread's warp, lane and the
// number of warps a block of n threads fills.
extern "C" __global__ void warp_geometry(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (i / warpSize) * 1000 + (i % warpSize) * 10 + (n + warpSize - 1) / warpSize;
}

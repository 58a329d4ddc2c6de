// Dynamic parallelism (built with -rdc): kernels that launch kernels. A parent launches a child
// per block with arguments of several sizes; a kernel launches itself down a tree to a depth; a
// launch into a stream a kernel created; a copy in a kernel before the launch that reads it; the
// device-side error calls; a launch nested past CUDA's 24 levels fails in the kernel with
// cudaErrorLaunchMaxDepthExceeded, not on the host.
#include "expect.cuh"

#include <cuda_runtime.h>

#include <vector>

struct span {
    int* base;
    short count;
    double scale;
};

__global__ void child_fill(span s, char tag, int block_of_parent) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < s.count) s.base[i] = static_cast<int>(s.scale * (block_of_parent * 1000 + i)) + tag;
}

// Each block of the parent launches one child over its slice.
__global__ void parent(int* out, int per_block, int* errors) {
    if (threadIdx.x != 0) return;
    span s{out + blockIdx.x * per_block, static_cast<short>(per_block), 2.0};
    child_fill<<<(per_block + 31) / 32, 32>>>(s, 'A', blockIdx.x);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(errors, 1);
}

// Node `node` of a complete binary tree of `depth` levels counts itself, then launches its two
// children (each a grid of one thread).
__global__ void tree(int* visits, int node, int level, int depth) {
    atomicAdd(&visits[node], 1);
    if (level + 1 < depth) {
        tree<<<1, 1>>>(visits, 2 * node + 1, level + 1, depth);
        tree<<<1, 1>>>(visits, 2 * node + 2, level + 1, depth);
    }
}

__global__ void in_a_stream(int* out) {
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return;
    span one{out, 4, 1.0};
    child_fill<<<1, 4, 0, s>>>(one, 0, 7);
    cudaStreamDestroy(s);
}

__global__ void sum_into(const int* from, int n, int* total) {
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += from[i];
    *total = sum;
}

// A copy, then a child that reads what it copied: the two run in the stream's order.
__global__ void copy_then_sum(const int* source, int* copy, int n, int* total) {
    if (cudaMemcpyAsync(copy, source, n * sizeof(int), cudaMemcpyDeviceToDevice, 0) != cudaSuccess) return;
    sum_into<<<1, 1>>>(copy, n, total);
}

// Each level launches the next; the launch past the limit reports its error code.
__global__ void deeper(int level, int* reached, int* refused_with) {
    *reached = level;
    deeper<<<1, 1>>>(level + 1, reached, refused_with);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) *refused_with = e;
}

static void each_block_launches_a_child_with_its_arguments() {
    const int blocks = 6, per_block = 40;
    int *out = nullptr, *errors = nullptr;
    EXPECT(cudaMalloc(&out, blocks * per_block * sizeof(int)) == cudaSuccess);
    EXPECT(cudaMalloc(&errors, sizeof(int)) == cudaSuccess);
    EXPECT(cudaMemset(errors, 0, sizeof(int)) == cudaSuccess);
    parent<<<blocks, 64>>>(out, per_block, errors);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<int> got(blocks * per_block);
    int failed = -1;
    EXPECT(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(cudaMemcpy(&failed, errors, sizeof failed, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(failed == 0);
    for (int b = 0; b < blocks; ++b)
        for (int i = 0; i < per_block; ++i) EXPECT(got[b * per_block + i] == 2 * (b * 1000 + i) + 'A');
    EXPECT(cudaFree(out) == cudaSuccess);
    EXPECT(cudaFree(errors) == cudaSuccess);
}

static void a_kernel_launches_itself_down_a_tree() {
    const int depth = 6, nodes = (1 << depth) - 1;
    int* visits = nullptr;
    EXPECT(cudaMalloc(&visits, nodes * sizeof(int)) == cudaSuccess);
    EXPECT(cudaMemset(visits, 0, nodes * sizeof(int)) == cudaSuccess);
    tree<<<1, 1>>>(visits, 0, 0, depth);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<int> got(nodes);
    EXPECT(cudaMemcpy(got.data(), visits, nodes * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int n = 0; n < nodes; ++n) EXPECT(got[n] == 1);
    EXPECT(cudaFree(visits) == cudaSuccess);
}

static void a_kernel_launches_into_a_stream_it_created() {
    int* out = nullptr;
    EXPECT(cudaMalloc(&out, 4 * sizeof(int)) == cudaSuccess);
    in_a_stream<<<1, 1>>>(out);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    int got[4] = {};
    EXPECT(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < 4; ++i) EXPECT(got[i] == 7000 + i);
    EXPECT(cudaFree(out) == cudaSuccess);
}

static void a_copy_in_a_kernel_comes_before_the_launch_after_it() {
    const int n = 100;
    std::vector<int> values(n);
    int expected = 0;
    for (int i = 0; i < n; ++i) expected += values[i] = i * i - 7;
    int *source = nullptr, *copy = nullptr, *total = nullptr;
    EXPECT(cudaMalloc(&source, n * sizeof(int)) == cudaSuccess);
    EXPECT(cudaMalloc(&copy, n * sizeof(int)) == cudaSuccess);
    EXPECT(cudaMalloc(&total, sizeof(int)) == cudaSuccess);
    EXPECT(cudaMemcpy(source, values.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaMemset(copy, 0, n * sizeof(int)) == cudaSuccess);
    copy_then_sum<<<1, 1>>>(source, copy, n, total);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    int got = 0;
    EXPECT(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(got == expected);
    EXPECT(cudaFree(source) == cudaSuccess);
    EXPECT(cudaFree(copy) == cudaSuccess);
    EXPECT(cudaFree(total) == cudaSuccess);
}

static void nesting_past_24_levels_fails_in_the_kernel() {
    int *reached = nullptr, *refused_with = nullptr;
    EXPECT(cudaMalloc(&reached, sizeof(int)) == cudaSuccess);
    EXPECT(cudaMalloc(&refused_with, sizeof(int)) == cudaSuccess);
    EXPECT(cudaMemset(refused_with, 0, sizeof(int)) == cudaSuccess);
    deeper<<<1, 1>>>(0, reached, refused_with);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    int level = -1, error = -1;
    EXPECT(cudaMemcpy(&level, reached, sizeof level, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(cudaMemcpy(&error, refused_with, sizeof error, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(level == 24);
    EXPECT(error == cudaErrorLaunchMaxDepthExceeded);
    EXPECT(cudaFree(reached) == cudaSuccess);
    EXPECT(cudaFree(refused_with) == cudaSuccess);
}

int main() {
    each_block_launches_a_child_with_its_arguments();
    a_kernel_launches_itself_down_a_tree();
    a_kernel_launches_into_a_stream_it_created();
    a_copy_in_a_kernel_comes_before_the_launch_after_it();
    nesting_past_24_levels_fails_in_the_kernel();
    return verdict("device_launch");
}

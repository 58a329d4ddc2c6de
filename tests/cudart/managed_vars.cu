// __managed__ variables as CUDA programs use them, through CudaBridge's libcudart.so.13 under
// `cudabridge-cli run`: their initial values seen by the host before any launch, kernel writes
// seen by the host after each kind of synchronizing call, host writes seen by the next kernel,
// kernels in a row without a synchronize in between, a blocking cudaMemcpy that reads one,
// cudaMemcpyToSymbol / cudaGetSymbolAddress given one, and its address handed to a kernel.
#include "expect.cuh"

__managed__ int counter = 5;
__managed__ float data[256];
__managed__ int table[4] = {1, 2, 3, 4};
__managed__ long long sum;

__global__ void count_and_fill() {
    atomicAdd(&counter, 1);
    data[threadIdx.x] = threadIdx.x * 2.0f;
}

__global__ void add_one() { atomicAdd(&counter, 1); }

// sum = counter + table[0..3], and table[i] doubled.
__global__ void sum_table() {
    if (threadIdx.x == 0) sum = counter + table[0] + table[1] + table[2] + table[3];
    __syncthreads();
    if (threadIdx.x < 4) table[threadIdx.x] *= 2;
}

__global__ void triple(int* p) { *p *= 3; }

int main() {
    // The initializers, before anything touched the device.
    EXPECT(counter == 5);
    EXPECT(table[0] == 1 && table[3] == 4);
    EXPECT(data[0] == 0.0f && data[255] == 0.0f && sum == 0);

    // Kernel writes, seen after cudaDeviceSynchronize.
    count_and_fill<<<1, 256>>>();
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT(counter == 261);
    EXPECT(data[3] == 6.0f && data[255] == 510.0f);

    // Host writes, seen by the next kernel; the kernel's, after cudaStreamSynchronize.
    counter = 100;
    table[2] = 30;
    sum_table<<<1, 32>>>();
    EXPECT(cudaStreamSynchronize(0) == cudaSuccess);
    EXPECT(sum == 100 + 1 + 2 + 30 + 4);
    EXPECT(table[0] == 2 && table[2] == 60 && table[3] == 8);

    // Two kernels in a row: the second starts from what the first left, not from the host's copy.
    counter = 0;
    add_one<<<4, 64>>>();
    add_one<<<2, 64>>>();
    cudaStream_t s;
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);
    add_one<<<1, 10, 0, s>>>();
    cudaEvent_t done;
    EXPECT(cudaEventCreate(&done) == cudaSuccess && cudaEventRecord(done, s) == cudaSuccess);
    EXPECT(cudaEventSynchronize(done) == cudaSuccess);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT(counter == 256 + 128 + 10);

    // A blocking copy waits for the kernel before it and reads what it wrote.
    counter = 7;
    add_one<<<1, 3>>>();
    int copied = 0;
    EXPECT(cudaMemcpy(&copied, &counter, sizeof copied, cudaMemcpyDefault) == cudaSuccess);
    EXPECT(copied == 10 && counter == 10);

    // The symbol functions take a managed variable: its address is the host's.
    const int forty = 40;
    EXPECT(cudaMemcpyToSymbol(counter, &forty, sizeof forty) == cudaSuccess);
    add_one<<<1, 2>>>();
    EXPECT(cudaDeviceSynchronize() == cudaSuccess && counter == 42);
    void* address = nullptr;
    size_t size = 0;
    EXPECT(cudaGetSymbolAddress(&address, counter) == cudaSuccess && address == &counter);
    EXPECT(cudaGetSymbolSize(&size, data) == cudaSuccess && size == sizeof data);
    cudaPointerAttributes a{};
    EXPECT(cudaPointerGetAttributes(&a, &counter) == cudaSuccess && a.type == cudaMemoryTypeManaged);

    // Its address handed to a kernel: the kernel reaches the host's copy, and the next kernel that
    // names the variable sees the result.
    triple<<<1, 1>>>(&counter);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess && counter == 126);
    add_one<<<1, 1>>>();
    EXPECT(cudaDeviceSynchronize() == cudaSuccess && counter == 127);

    EXPECT(cudaEventDestroy(done) == cudaSuccess && cudaStreamDestroy(s) == cudaSuccess);
    EXPECT(cudaGetLastError() == cudaSuccess);
    return verdict("managed_vars");
}

// Every error path of the runtime API a CUDA program relies on, through CudaBridge's
// libcudart.so.13 under `cudabridge-cli run`: each check prints its line and the program fails
// on the first wrong answer.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "expect.cuh"

__global__ void store_far(int* p) { p[threadIdx.x + (1 << 28)] = 1; }

void two_threads_with_their_own_streams() {
    auto work = [](int value, bool* ok) {
        cudaStream_t s;
        int* d = nullptr;
        std::vector<int> h(4096);
        *ok = cudaStreamCreate(&s) == cudaSuccess && cudaMalloc(&d, h.size() * sizeof(int)) == cudaSuccess;
        for (int round = 0; *ok && round < 20; ++round) {
            fill<<<16, 256, 0, s>>>(d, int(h.size()), value + round);
            *ok = cudaMemcpyAsync(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost, s) == cudaSuccess &&
                  cudaStreamSynchronize(s) == cudaSuccess;
            for (int x : h) *ok = *ok && x == value + round;
        }
        cudaFree(d);
        cudaStreamDestroy(s);
    };
    bool a = false, b = false;
    std::thread t1(work, 1000, &a), t2(work, 2000, &b);
    t1.join();
    t2.join();
    EXPECT(a);
    EXPECT(b);
}

int main() {
    int count = 0;
    EXPECT(cudaGetDeviceCount(&count) == cudaSuccess && count >= 1);
    EXPECT(cudaSetDevice(count + 5) == cudaErrorInvalidDevice);
    EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);
    EXPECT(cudaGetLastError() == cudaSuccess);  // read once, then reset
    EXPECT(cudaSetDevice(0) == cudaSuccess);

    void* huge = nullptr;
    EXPECT(cudaMalloc(&huge, size_t(1) << 50) == cudaErrorMemoryAllocation);  // 1 PiB
    EXPECT(cudaPeekAtLastError() == cudaErrorMemoryAllocation);
    EXPECT(cudaGetLastError() == cudaErrorMemoryAllocation);

    int* d = nullptr;
    EXPECT(cudaMalloc(&d, 1024 * sizeof(int)) == cudaSuccess);
    cudaPointerAttributes attr;
    EXPECT(cudaPointerGetAttributes(&attr, d) == cudaSuccess && attr.type == cudaMemoryTypeDevice);
    std::vector<int> h(4096);
    EXPECT(cudaMemcpy(d, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess);  // past the end
    cudaGetLastError();
    EXPECT(cudaMemcpy(d, h.data(), 1024 * sizeof(int), (cudaMemcpyKind)42) == cudaErrorInvalidMemcpyDirection);
    cudaGetLastError();

    fill<<<1, 2048>>>(d, 1024, 1);  // more threads than a block may have
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    fill<<<0, 32>>>(d, 1024, 1);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    fill<<<4, 256>>>(d, 1024, 7);
    EXPECT(cudaGetLastError() == cudaSuccess);
    EXPECT(cudaMemcpy(h.data(), d, 1024 * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(h[0] == 7 && h[1023] == 7);

    cudaFuncAttributes fa;
    EXPECT(cudaFuncGetAttributes(&fa, (const void*)fill) == cudaSuccess && fa.maxThreadsPerBlock >= 256);
    int blocks = 0;
    EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void*)fill, 256, 0) == cudaSuccess &&
           blocks >= 1 && blocks <= 32);
    EXPECT(cudaLaunchKernel((const void*)main, dim3(1), dim3(1), nullptr, 0, 0) == cudaErrorInvalidDeviceFunction);
    cudaGetLastError();

    cudaEvent_t e;
    EXPECT(cudaEventCreate(&e) == cudaSuccess);
    EXPECT(cudaEventRecord(e) == cudaSuccess);
    EXPECT(cudaEventSynchronize(e) == cudaSuccess && cudaEventQuery(e) == cudaSuccess);
    EXPECT(cudaEventDestroy(e) == cudaSuccess);
    EXPECT(cudaDestroyExternalMemory(nullptr) == cudaErrorNotSupported);  // what the library does not offer
    cudaGetLastError();
    EXPECT(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorPeerAccessUnsupported);  // eGPUs meet through the host
    cudaGetLastError();
    EXPECT(std::string(cudaGetErrorName(cudaErrorIllegalAddress)) == "cudaErrorIllegalAddress");

    two_threads_with_their_own_streams();

    // An out-of-bounds store: the launch or the next synchronize reports an illegal address,
    // and it stays: every later call answers it until the device is reset.
    store_far<<<1, 32>>>(d);
    const cudaError_t sync = cudaDeviceSynchronize();
    EXPECT(sync == cudaErrorIllegalAddress);
    EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);
    EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);  // sticky
    EXPECT(cudaMemcpy(h.data(), d, 16, cudaMemcpyDeviceToHost) == cudaErrorIllegalAddress);
    EXPECT(cudaDeviceReset() == cudaSuccess);
    EXPECT(cudaGetLastError() == cudaSuccess);
    int* again = nullptr;
    EXPECT(cudaMalloc(&again, 64) == cudaSuccess);
    fill<<<1, 16>>>(again, 16, 3);  // the module loads again after the reset
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT(cudaFree(again) == cudaSuccess);

    return verdict("api_errors");
}

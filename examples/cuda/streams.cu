// Four streams, each copying its quarter in from pinned memory, scaling it and copying it back,
// so copies and kernels of different streams may overlap; events time the whole and one stream
// waits for another's event. A host function reports when the last stream is done.
#include "check.cuh"

#include <atomic>
#include <vector>

__global__ void scale(float* x, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

std::atomic<int> host_calls{0};
void CUDART_CB done(void*) { ++host_calls; }

int main() {
    const int streams = 4, chunk = 1 << 18, n = streams * chunk;
    float* h = nullptr;
    CHECK(cudaMallocHost(&h, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h[i] = float(i % 1024);
    float* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    cudaStream_t s[streams];
    for (auto& x : s) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    cudaEvent_t start, stop, first_done;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreate(&first_done));
    CHECK(cudaEventRecord(start, s[0]));
    for (int k = 0; k < streams; ++k) {
        float* part = d + k * chunk;
        CHECK(cudaMemcpyAsync(part, h + k * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, s[k]));
        scale<<<(chunk + 255) / 256, 256, 0, s[k]>>>(part, 2.0f, chunk);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h + k * chunk, part, chunk * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    }
    CHECK(cudaEventRecord(first_done, s[0]));
    CHECK(cudaStreamWaitEvent(s[streams - 1], first_done, 0));
    CHECK(cudaLaunchHostFunc(s[streams - 1], done, nullptr));
    for (int k = 1; k < streams; ++k) {
        cudaEvent_t e;
        CHECK(cudaEventCreate(&e));
        CHECK(cudaEventRecord(e, s[k]));
        CHECK(cudaStreamWaitEvent(s[0], e, 0));
        CHECK(cudaEventDestroy(e));
    }
    CHECK(cudaEventRecord(stop, s[0]));
    CHECK(cudaEventSynchronize(stop));
    for (auto& x : s) CHECK(cudaStreamSynchronize(x));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    for (int i = 0; i < n; ++i)
        if (h[i] != 2.0f * float(i % 1024)) {
            std::printf("FAIL: element %d is %f\n", i, h[i]);
            return 1;
        }
    for (int wait = 0; wait < 1000 && host_calls.load() == 0; ++wait) CHECK(cudaDeviceSynchronize());
    if (host_calls.load() != 1) {
        std::printf("FAIL: the host function ran %d times\n", host_calls.load());
        return 1;
    }
    for (auto& x : s) CHECK(cudaStreamDestroy(x));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    std::printf("streams: %d streams x %d floats in %.3f ms (device events), PASS\n", streams, chunk, ms);
    return 0;
}

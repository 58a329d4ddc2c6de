// Host functions on streams (cudaLaunchHostFunc, cudaStreamAddCallback) ordered as CUDA orders
// them, through CudaBridge's libcudart.so.13 under `cudabridge-cli run`: each runs after the work
// before it, and work queued after it waits until it has returned.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "expect.cuh"

struct gate {
    std::atomic<bool> open{false};
    std::atomic<bool> entered{false};
};

// Waits (without a deadline: the main thread always opens it) until the gate opens, then writes 42
// into the host buffer that the copy after it reads.
static void hold_then_write(void* user) {
    auto* g = static_cast<gate*>(user);
    g->entered = true;
    while (!g->open) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

static std::vector<int>* host_values = nullptr;
static void write_42(void*) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (int& v : *host_values) v = 42;
}

static std::vector<int> order;
static void append(void* user) { order.push_back(static_cast<int>(reinterpret_cast<intptr_t>(user))); }
static void CUDART_CB callback(cudaStream_t, cudaError_t status, void* user) {
    if (status == cudaSuccess) append(user);
}

int main() {
    const int n = 4096;
    int* d = nullptr;
    EXPECT(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
    cudaStream_t s;
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);

    // A copy queued after a host function reads what the host function wrote.
    std::vector<int> h(n, 7), back(n, 0);
    host_values = &h;
    fill<<<n / 256, 256, 0, s>>>(d, n, 1);
    EXPECT(cudaLaunchHostFunc(s, write_42, nullptr) == cudaSuccess);
    EXPECT(cudaMemcpyAsync(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice, s) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
    EXPECT(cudaMemcpy(back.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int v : back) EXPECT(v == 42);

    // While a host function has not returned, its stream is not done.
    gate g;
    EXPECT(cudaLaunchHostFunc(s, hold_then_write, &g) == cudaSuccess);
    EXPECT(cudaStreamQuery(s) == cudaErrorNotReady);
    g.open = true;
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
    EXPECT(g.entered);
    EXPECT(cudaStreamQuery(s) == cudaSuccess);

    // Host functions and callbacks on one stream run in the order they were queued.
    for (int i = 1; i <= 6; ++i) {
        void* tag = reinterpret_cast<void*>(static_cast<intptr_t>(i));
        if (i % 2)
            EXPECT(cudaLaunchHostFunc(s, append, tag) == cudaSuccess);
        else
            EXPECT(cudaStreamAddCallback(s, callback, tag, 0) == cudaSuccess);
        fill<<<1, 32, 0, s>>>(d, 32, i);
    }
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT((order == std::vector<int>{1, 2, 3, 4, 5, 6}));

    EXPECT(cudaLaunchHostFunc(s, nullptr, nullptr) == cudaErrorInvalidValue);
    cudaGetLastError();
    EXPECT(cudaStreamDestroy(s) == cudaSuccess);
    cudaFree(d);
    return verdict("host_functions");
}

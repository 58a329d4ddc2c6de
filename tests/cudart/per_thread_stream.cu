// A program built with --default-stream per-thread, through CudaBridge's libcudart.so.13 under
// `cudabridge-cli run`: every host thread's NULL stream is its own, so one thread's work held
// back (a host function that has not returned) does not hold back another thread's.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "expect.cuh"

static std::atomic<bool> gate_open{false};
static void hold(void*) {
    while (!gate_open) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// Fills, copies back and checks, on this thread's default stream.
static bool round_trip(int value) {
    const int n = 2048;
    int* d = nullptr;
    std::vector<int> h(n, 0);
    bool ok = cudaMalloc(&d, n * sizeof(int)) == cudaSuccess;
    fill<<<n / 256, 256>>>(d, n, value);
    ok = ok && cudaGetLastError() == cudaSuccess;
    ok = ok && cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int x : h) ok = ok && x == value;
    ok = ok && cudaStreamSynchronize(0) == cudaSuccess && cudaStreamQuery(cudaStreamPerThread) == cudaSuccess;
    cudaFree(d);
    return ok;
}

int main() {
    EXPECT(round_trip(5));

    // This thread's default stream waits behind a host function that has not returned...
    EXPECT(cudaLaunchHostFunc(0, hold, nullptr) == cudaSuccess);
    EXPECT(cudaStreamQuery(0) == cudaErrorNotReady);
    // ...while another thread's runs: its copies and kernels finish before the gate opens.
    std::atomic<bool> other_done{false}, other_ok{false};
    std::thread other([&] {
        other_ok = round_trip(9) && round_trip(11);
        other_done = true;
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!other_done && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT(other_done);  // not held back behind this thread's host function
    gate_open = true;
    other.join();
    EXPECT(other_ok);
    EXPECT(cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess);
    EXPECT(cudaStreamDestroy(cudaStreamPerThread) == cudaErrorInvalidResourceHandle);
    cudaGetLastError();

    // After a reset every thread gets a new default stream.
    EXPECT(cudaDeviceReset() == cudaSuccess);
    EXPECT(round_trip(13));
    return verdict("per_thread_stream");
}

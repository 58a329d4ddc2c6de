// Host-to-device, device-to-host and device-to-device bandwidth of 32 MiB copies from pinned
// memory, timed with device events (modeled on a simulated eGPU), checked for content.
#include "check.cuh"

#include <cstring>

float time_copies(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, int repeats) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int r = 0; r < repeats; ++r) CHECK(cudaMemcpyAsync(dst, src, bytes, kind, 0));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return ms / repeats;
}

int main() {
    const size_t bytes = 32u << 20;
    const int repeats = 4;
    unsigned char *h_in, *h_out, *d_a, *d_b;
    CHECK(cudaMallocHost(&h_in, bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    for (size_t i = 0; i < bytes; ++i) h_in[i] = static_cast<unsigned char>(i * 31 + 7);
    const float h2d = time_copies(d_a, h_in, bytes, cudaMemcpyHostToDevice, repeats);
    const float d2d = time_copies(d_b, d_a, bytes, cudaMemcpyDeviceToDevice, repeats);
    const float d2h = time_copies(h_out, d_b, bytes, cudaMemcpyDeviceToHost, repeats);
    if (std::memcmp(h_in, h_out, bytes) != 0) {
        std::printf("FAIL: the data came back changed\n");
        return 1;
    }
    const double gb = bytes / 1e9;
    std::printf("bandwidthTest (%zu MiB, pinned, device events):\n", bytes >> 20);
    std::printf("  host to device    %8.2f GB/s\n", gb / (h2d / 1e3));
    std::printf("  device to host    %8.2f GB/s\n", gb / (d2h / 1e3));
    std::printf("  device to device  %8.2f GB/s\n", gb / (d2d / 1e3));
    std::printf("bandwidthTest: PASS\n");
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    return 0;
}

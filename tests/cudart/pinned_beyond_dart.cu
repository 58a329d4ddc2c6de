// More pinned memory than the simulated Apple-Silicon host's DART maps at once (1.5 GiB): five
// cudaMallocHost buffers of 820 MiB (4.1 GiB) are all allocated, then each is used in turn. Only
// a piece at each end of each buffer is touched, so the test costs little memory.
#include "expect.cuh"

#include <cuda_runtime.h>

#include <cstring>
#include <vector>

int main() {
    const size_t each = size_t{820} << 20, piece = size_t{8} << 20;
    std::vector<unsigned char*> buffers;
    for (int i = 0; i < 5; ++i) {
        void* p = nullptr;
        const cudaError_t e = cudaMallocHost(&p, each);
        if (e != cudaSuccess) std::printf("cudaMallocHost %d: %s\n", i, cudaGetErrorString(e));
        EXPECT(e == cudaSuccess);
        if (e == cudaSuccess) buffers.push_back(static_cast<unsigned char*>(p));
    }
    unsigned char* d = nullptr;
    EXPECT(cudaMalloc(&d, 2 * piece) == cudaSuccess);
    std::vector<unsigned char> back(2 * piece);
    for (size_t b = 0; b < buffers.size(); ++b) {
        unsigned char* head = buffers[b];
        unsigned char* tail = buffers[b] + each - piece;
        std::memset(head, int(b + 1), piece);
        std::memset(tail, int(b + 101), piece);
        EXPECT(cudaMemcpyAsync(d, head, piece, cudaMemcpyHostToDevice, nullptr) == cudaSuccess);
        EXPECT(cudaMemcpyAsync(d + piece, tail, piece, cudaMemcpyHostToDevice, nullptr) == cudaSuccess);
        EXPECT(cudaDeviceSynchronize() == cudaSuccess);
        std::memset(head, 0, piece);
        EXPECT(cudaMemcpy(head, d + piece, piece, cudaMemcpyDeviceToHost) == cudaSuccess);
        EXPECT(head[0] == b + 101 && head[piece - 1] == b + 101);
        EXPECT(cudaMemcpy(back.data(), d, 2 * piece, cudaMemcpyDeviceToHost) == cudaSuccess);
        EXPECT(back[0] == b + 1 && back[2 * piece - 1] == b + 101);
    }
    for (auto* p : buffers) EXPECT(cudaFreeHost(p) == cudaSuccess);
    EXPECT(cudaFree(d) == cudaSuccess);
    return verdict("pinned_beyond_dart");
}

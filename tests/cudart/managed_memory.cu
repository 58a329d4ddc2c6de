// Managed memory and zero-copy host memory as CUDA programs use them, through CudaBridge's
// libcudart.so.13 under `cudabridge-cli run`: cudaMallocManaged read and written by host code and
// kernels at one address (saxpy, an atomicAdd counter), mapped pinned memory
// (cudaHostAlloc(cudaHostAllocMapped), cudaHostRegister(cudaHostRegisterMapped)) reached by
// kernels through cudaHostGetDevicePointer, pointer attributes, copies between managed and device
// memory, prefetch and advice, and an unregistered host pointer that still faults.
#include <cstdlib>
#include <cstring>

#include "expect.cuh"

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void count_odd(const int* v, int n, unsigned* counter) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (v[i] & 1)) atomicAdd(counter, 1u);
}

__global__ void twice(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= 2;
}

static void managed_saxpy_and_counter() {
    const int n = 5000;
    float *x = nullptr, *y = nullptr;
    unsigned* counter = nullptr;
    int* v = nullptr;
    EXPECT(cudaMallocManaged(&x, n * sizeof(float)) == cudaSuccess);
    EXPECT(cudaMallocManaged(&y, n * sizeof(float), cudaMemAttachGlobal) == cudaSuccess);
    EXPECT(cudaMallocManaged(&v, n * sizeof(int)) == cudaSuccess);
    EXPECT(cudaMallocManaged(&counter, sizeof(unsigned)) == cudaSuccess);
    if (!x || !y || !v || !counter) return;
    for (int i = 0; i < n; ++i) x[i] = float(i % 7), y[i] = 1.0f, v[i] = i;
    *counter = 0;
    cudaMemLocation gpu{cudaMemLocationTypeDevice, 0};
    EXPECT(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, gpu) == cudaSuccess);
    EXPECT(cudaMemPrefetchAsync(x, n * sizeof(float), gpu, 0, 0) == cudaSuccess);
    cudaStream_t s;
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);
    EXPECT(cudaStreamAttachMemAsync(s, v, 0, cudaMemAttachSingle) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess && cudaStreamDestroy(s) == cudaSuccess);
    saxpy<<<(n + 255) / 256, 256>>>(n, 3.0f, x, y);
    count_odd<<<(n + 127) / 128, 128>>>(v, n, counter);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    bool right = true;
    for (int i = 0; i < n; ++i) right = right && y[i] == 3.0f * float(i % 7) + 1.0f;
    EXPECT(right);
    EXPECT(*counter == unsigned(n / 2));

    // Host writes after the kernels, read by the next kernel.
    for (int i = 0; i < n; ++i) y[i] = 2.0f;
    saxpy<<<(n + 255) / 256, 256>>>(n, 1.0f, x, y);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT(y[0] == 2.0f && y[6] == 8.0f && y[n - 1] == 2.0f + float((n - 1) % 7));

    cudaPointerAttributes a{};
    EXPECT(cudaPointerGetAttributes(&a, y + 10) == cudaSuccess && a.type == cudaMemoryTypeManaged);
    EXPECT(a.devicePointer == y + 10 && a.hostPointer == y + 10);

    // Copies take managed memory on either side, with cudaMemcpyDefault and with a named kind.
    float* d = nullptr;
    EXPECT(cudaMalloc(&d, n * sizeof(float)) == cudaSuccess);
    EXPECT(cudaMemcpy(d, y, n * sizeof(float), cudaMemcpyDefault) == cudaSuccess);
    EXPECT(cudaMemset(y, 0, n * sizeof(float)) == cudaSuccess && y[6] == 0.0f);
    EXPECT(cudaMemcpy(y, d, n * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess && y[6] == 8.0f);
    EXPECT(cudaMemcpy(x, y, n * sizeof(float), cudaMemcpyDefault) == cudaSuccess && x[6] == 8.0f);
    EXPECT(cudaPointerGetAttributes(&a, d) == cudaSuccess && a.type == cudaMemoryTypeDevice);

    // Prefetch and advice check their arguments.
    EXPECT(cudaMemPrefetchAsync(d, sizeof(float), gpu, 0, 0) == cudaErrorInvalidValue);  // not managed
    EXPECT(cudaMemAdvise(x, n * sizeof(float), cudaMemoryAdvise(9), gpu) == cudaErrorInvalidValue);
    EXPECT(cudaMallocManaged(&d, 0) == cudaErrorInvalidValue);
    (void)cudaGetLastError();

    EXPECT(cudaFree(d) == cudaSuccess && cudaFree(x) == cudaSuccess && cudaFree(y) == cudaSuccess);
    EXPECT(cudaFree(v) == cudaSuccess && cudaFree(counter) == cudaSuccess);
    EXPECT(cudaPointerGetAttributes(&a, x) == cudaSuccess && a.type == cudaMemoryTypeUnregistered);
}

static void zero_copy() {
    const int n = 3000;
    int* h = nullptr;
    EXPECT(cudaHostAlloc(&h, n * sizeof(int), cudaHostAllocMapped) == cudaSuccess);
    if (!h) return;
    for (int i = 0; i < n; ++i) h[i] = i;
    int* d = nullptr;
    EXPECT(cudaHostGetDevicePointer(&d, h, 0) == cudaSuccess && d == h);  // unified addressing
    unsigned flags = 0;
    EXPECT(cudaHostGetFlags(&flags, h + 10) == cudaSuccess && flags == cudaHostAllocMapped);
    twice<<<(n + 255) / 256, 256>>>(d, n);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT(h[0] == 0 && h[1] == 2 && h[n - 1] == 2 * (n - 1));
    cudaPointerAttributes a{};
    EXPECT(cudaPointerGetAttributes(&a, h) == cudaSuccess && a.type == cudaMemoryTypeHost && a.devicePointer == h);
    EXPECT(cudaFreeHost(h) == cudaSuccess);

    // malloc'd memory registered as mapped.
    int* m = static_cast<int*>(std::malloc(n * sizeof(int)));
    for (int i = 0; i < n; ++i) m[i] = -i;
    EXPECT(cudaHostRegister(m, n * sizeof(int), cudaHostRegisterMapped) == cudaSuccess);
    EXPECT(cudaHostGetDevicePointer(&d, m + 5, 0) == cudaSuccess && d == m + 5);
    twice<<<(n + 255) / 256, 256>>>(m, n);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT(m[1] == -2 && m[n - 1] == -2 * (n - 1));
    EXPECT(cudaHostUnregister(m) == cudaSuccess);
    EXPECT(cudaHostGetDevicePointer(&d, m, 0) == cudaErrorInvalidValue);  // no longer pinned
    (void)cudaGetLastError();
    std::free(m);
}

int main() {
    int managed = 0, map = 0, concurrent = -1, same_address = 0;
    EXPECT(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0) == cudaSuccess && managed == 1);
    EXPECT(cudaDeviceGetAttribute(&map, cudaDevAttrCanMapHostMemory, 0) == cudaSuccess && map == 1);
    EXPECT(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0) == cudaSuccess &&
           concurrent == 0);
    EXPECT(cudaDeviceGetAttribute(&same_address, cudaDevAttrCanUseHostPointerForRegisteredMem, 0) == cudaSuccess &&
           same_address == 1);
    cudaDeviceProp p{};
    EXPECT(cudaGetDeviceProperties(&p, 0) == cudaSuccess && p.managedMemory == 1 && p.canMapHostMemory == 1 &&
           p.unifiedAddressing == 1);

    managed_saxpy_and_counter();
    zero_copy();

    // Host memory nobody registered is not the device's: the kernel faults, and the fault sticks.
    static int unregistered[256];
    twice<<<1, 256>>>(unregistered, 256);
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    EXPECT(unregistered[1] == 0);
    void* after = nullptr;
    EXPECT(cudaMalloc(&after, 4) == cudaErrorIllegalAddress);
    return verdict("managed_memory");
}

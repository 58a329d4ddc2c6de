// Every cudaDeviceAttr a program may ask is answered, truthfully for the modeled device; stream
// priorities and attributes, and stream-ordered allocation from memory pools, behave as CUDA's.
#include "expect.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

static void every_attribute_is_answered() {
    cudaDeviceProp prop{};
    EXPECT(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    int answered = 0;
    for (int a = 1; a <= 147; ++a) {
        int v = -12345;
        const cudaError_t e = cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(a), 0);
        const bool reserved = (a >= 92 && a <= 94) || a == 96 || (a >= 102 && a <= 105) || a == 107 ||
                              a == 110 || (a >= 122 && a <= 124) || (a >= 127 && a <= 129) || a == 132 ||
                              a == 136 || a == 137 || a == 141 || a == 145 || a == 146 || a == 44;
        if (reserved) {
            EXPECT(e == cudaErrorInvalidValue);
            (void)cudaGetLastError();
        } else {
            if (e != cudaSuccess) std::printf("attribute %d: %s\n", a, cudaGetErrorString(e));
            EXPECT(e == cudaSuccess);
            answered += e == cudaSuccess;
        }
    }
    EXPECT(answered > 100);
    int v = -1;
    EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0) == cudaSuccess && v == cudaComputeModeDefault);
    EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrGpuOverlap, 0) == cudaSuccess && v == 1);
    EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && v == 1);
    EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0) == cudaSuccess && v == prop.l2CacheSize);
    EXPECT(prop.l2CacheSize > 0);
    EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess &&
           v == prop.multiProcessorCount);
    EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0) == cudaSuccess && v > 0);
    EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrStreamPrioritiesSupported, 0) == cudaSuccess && v == 1);
    EXPECT(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(9999), 0) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    char bus[32] = {};
    int found = -1;
    EXPECT(cudaDeviceGetPCIBusId(bus, sizeof bus, 0) == cudaSuccess && std::strlen(bus) > 0);
    EXPECT(cudaDeviceGetByPCIBusId(&found, bus) == cudaSuccess && found == 0);
}

static void stream_priorities_and_attributes_read_back() {
    int least = 1, greatest = 1;
    EXPECT(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess && least == 0 && greatest < 0);
    cudaStream_t s{};
    EXPECT(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest - 10) == cudaSuccess);
    int priority = 0;
    unsigned flags = 0;
    EXPECT(cudaStreamGetPriority(s, &priority) == cudaSuccess && priority == greatest);  // clamped
    EXPECT(cudaStreamGetFlags(s, &flags) == cudaSuccess && flags == cudaStreamNonBlocking);
    cudaStreamAttrValue window{};
    window.accessPolicyWindow.num_bytes = 1 << 20;
    window.accessPolicyWindow.hitRatio = 0.5f;
    window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    EXPECT(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &window) == cudaSuccess);
    cudaStreamAttrValue back{};
    EXPECT(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back) == cudaSuccess);
    EXPECT(back.accessPolicyWindow.num_bytes == window.accessPolicyWindow.num_bytes);
    EXPECT(cudaCtxResetPersistingL2Cache() == cudaSuccess);
    EXPECT(cudaStreamDestroy(s) == cudaSuccess);
}

static void pools_allocate_in_stream_order_and_count_their_bytes() {
    cudaMemPool_t pool{};
    EXPECT(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess);
    unsigned long long threshold = UINT64_MAX;
    EXPECT(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess);
    unsigned long long read = 0;
    EXPECT(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &read) == cudaSuccess && read == threshold);

    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t mine{};
    EXPECT(cudaMemPoolCreate(&mine, &props) == cudaSuccess);
    cudaStream_t s{};
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);
    const int n = 1 << 16;
    int* a = nullptr;
    EXPECT(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&a), n * sizeof(int), mine, s) == cudaSuccess);
    unsigned long long used = 0;
    EXPECT(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && used >= n * 4);
    fill<<<(n + 255) / 256, 256, 0, s>>>(a, n, 7);
    int host[4] = {};
    EXPECT(cudaMemcpyAsync(host, a + n - 4, sizeof host, cudaMemcpyDeviceToHost, s) == cudaSuccess);
    EXPECT(cudaFreeAsync(a, s) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
    EXPECT(host[0] == 7 && host[3] == 7);
    EXPECT(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && used == 0);
    EXPECT(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemHigh, &used) == cudaSuccess && used >= n * 4);
    EXPECT(cudaMemPoolTrimTo(mine, 0) == cudaSuccess);
    // A device's current pool is the one cudaMallocAsync takes from.
    EXPECT(cudaDeviceSetMemPool(0, mine) == cudaSuccess);
    cudaMemPool_t current{};
    EXPECT(cudaDeviceGetMemPool(&current, 0) == cudaSuccess && current == mine);
    EXPECT(cudaMallocAsync(reinterpret_cast<void**>(&a), 4096, s) == cudaSuccess);
    EXPECT(cudaFreeAsync(a, s) == cudaSuccess);
    EXPECT(cudaDeviceSetMemPool(0, pool) == cudaSuccess);
    EXPECT(cudaMemPoolDestroy(mine) == cudaSuccess);
    EXPECT(cudaMemPoolDestroy(pool) == cudaErrorInvalidValue);  // a default pool stays
    (void)cudaGetLastError();
    EXPECT(cudaStreamDestroy(s) == cudaSuccess);
}

static void a_function_not_offered_says_so() {
    cudaMipmappedArray_t array{};
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    EXPECT(desc.x == 32 && desc.f == cudaChannelFormatKindFloat);
    EXPECT(cudaMallocMipmappedArray(&array, &desc, make_cudaExtent(16, 16, 0), 4) == cudaErrorNotSupported);
    EXPECT(cudaGetLastError() == cudaErrorNotSupported);
    EXPECT(cudaGetLastError() == cudaSuccess);  // not sticky
}

int main() {
    every_attribute_is_answered();
    stream_priorities_and_attributes_read_back();
    pools_allocate_in_stream_order_and_count_their_bytes();
    a_function_not_offered_says_so();
    return verdict("device_attributes");
}

// A CUDA 12 program as the host compiler builds it against libcudart.so.12, with no CUDA 12
// toolkit: the CUDA 12 prototypes and CUDA 12's cudaDeviceProp are written out here (from the
// public CUDA 12.x headers: driver_types.h, cudaDeviceProp; cuda_runtime_api.h, cudaMemAdvise and
// cudaMemPrefetchAsync) and every call binds at version libcudart.so.12. Run through
// `cudabridge-cli run` on the simulated RTX 5090 profile; prints PASS when every check holds.
#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

extern "C" {

typedef int cudaError_t;
struct CUstream_st;
typedef CUstream_st* cudaStream_t;
struct uuid16 {
    char bytes[16];
};

// CUDA 12.x's cudaDeviceProp (12.4 and later name the ints after unifiedFunctionPointers; 12.0 to
// 12.3 reserved them): 1032 bytes.
struct cudaDeviceProp {
    char name[256];
    uuid16 uuid;
    char luid[8];
    unsigned luidDeviceNodeMask;
    size_t totalGlobalMem, sharedMemPerBlock;
    int regsPerBlock, warpSize;
    size_t memPitch;
    int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
    int clockRate;
    size_t totalConstMem;
    int major, minor;
    size_t textureAlignment, texturePitchAlignment;
    int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory, computeMode;
    int maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear, maxTexture2D[2], maxTexture2DMipmap[2];
    int maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3], maxTextureCubemap;
    int maxTexture1DLayered[2], maxTexture2DLayered[3], maxTextureCubemapLayered[2];
    int maxSurface1D, maxSurface2D[2], maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3];
    int maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount;
    int unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor, streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID, hostNativeAtomicSupported;
    int singleToDoublePrecisionPerfRatio, pageableMemoryAccess, concurrentManagedAccess;
    int computePreemptionSupported, canUseHostPointerForRegisteredMem, cooperativeLaunch;
    int cooperativeMultiDeviceLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost, maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
    unsigned gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned memoryPoolSupportedHandleTypes;
    int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers;
    int deviceNumaConfig, deviceNumaId, mpsEnabled, hostNumaId;
    unsigned gpuPciDeviceID, gpuPciSubsystemID;
    int hostNumaMultinodeIpcSupported;
    int reserved[56];
};
static_assert(sizeof(cudaDeviceProp) == 1032);
static_assert(offsetof(cudaDeviceProp, memoryClockRate) == 608);
static_assert(offsetof(cudaDeviceProp, sharedMemPerBlockOptin) == 696);

// CUDA 12's prototypes (cuda_runtime_api.h maps cudaGetDeviceProperties to the _v2 entry point).
cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, int attribute, int device);
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned flags);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, int kind);
cudaError_t cudaMemAdvise(const void* ptr, size_t count, int advice, int device);
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device, cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);

}  // extern "C"

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAIL: %s\n", what);
        ++failures;
    }
}

int attribute(int a) {
    int v = -12345;
    expect(cudaDeviceGetAttribute(&v, a, 0) == 0, "cudaDeviceGetAttribute");
    return v;
}

}  // namespace

int main() {
    // The entry point a CUDA 12 program binds to, looked up at its version as the loader would.
    using props_fn = cudaError_t (*)(cudaDeviceProp*, int);
    auto get = reinterpret_cast<props_fn>(dlvsym(RTLD_DEFAULT, "cudaGetDeviceProperties_v2", "libcudart.so.12"));
    expect(get != nullptr, "cudaGetDeviceProperties_v2@libcudart.so.12 is there");
    if (!get) get = cudaGetDeviceProperties_v2;

    cudaDeviceProp p;
    std::memset(&p, 0x5a, sizeof p);  // anything left unwritten shows
    expect(get(&p, 0) == 0, "cudaGetDeviceProperties_v2");
    std::printf("%s: cc %d.%d, %d SMs, %zu bytes, clock %d kHz, memory clock %d kHz, bus %d bits\n", p.name, p.major,
                p.minor, p.multiProcessorCount, p.totalGlobalMem, p.clockRate, p.memoryClockRate, p.memoryBusWidth);
    expect(std::strcmp(p.name, "NVIDIA GeForce RTX 5090") == 0, "name");
    expect(p.totalGlobalMem == 32ull << 30, "totalGlobalMem");
    expect(p.major == 12 && p.minor == 0, "major.minor");
    expect(p.major == attribute(75) && p.minor == attribute(76), "major.minor as the attributes give them");
    expect(p.multiProcessorCount == 170 && p.multiProcessorCount == attribute(16), "multiProcessorCount");
    expect(p.warpSize == 32 && p.maxThreadsPerBlock == 1024, "warpSize, maxThreadsPerBlock");
    // The fields CUDA 13 removed, and the ones after them: a CUDA 13 struct would put each of
    // these at another offset.
    expect(p.clockRate == 2991000 && p.clockRate == attribute(13), "clockRate");
    expect(p.memoryClockRate == attribute(36) && p.memoryClockRate > 0, "memoryClockRate");
    expect(p.computeMode == 0 && p.kernelExecTimeoutEnabled == 0, "computeMode, kernelExecTimeoutEnabled");
    expect(p.memoryBusWidth == 512 && p.memoryBusWidth == attribute(37), "memoryBusWidth");
    expect(p.l2CacheSize == attribute(38), "l2CacheSize");
    expect(p.pciBusID == 0x12 && p.pciBusID == attribute(33), "pciBusID");
    expect(p.maxThreadsPerMultiProcessor == 1536 && p.maxThreadsPerMultiProcessor == attribute(39),
           "maxThreadsPerMultiProcessor");
    expect(p.sharedMemPerMultiprocessor == 100u * 1024, "sharedMemPerMultiprocessor");
    expect(p.managedMemory == attribute(83), "managedMemory");
    expect(p.sharedMemPerBlockOptin == 99u * 1024 && int(p.sharedMemPerBlockOptin) == attribute(97),
           "sharedMemPerBlockOptin");
    expect(p.maxBlocksPerMultiProcessor == 32 && p.maxBlocksPerMultiProcessor == attribute(106),
           "maxBlocksPerMultiProcessor");
    expect(p.reservedSharedMemPerBlock == 1024, "reservedSharedMemPerBlock");
    expect(p.hostRegisterSupported == 1, "hostRegisterSupported");
    expect(p.hostNumaId == -1 && p.deviceNumaId == -1, "hostNumaId, deviceNumaId");
    expect(p.reserved[55] == 0, "the reserved ints are zero");

    // cudaMalloc and cudaMemcpy, there and back.
    int host[256], back[256];
    for (int i = 0; i < 256; ++i) host[i] = i * 7 - 100;
    void* device = nullptr;
    expect(cudaMalloc(&device, sizeof host) == 0, "cudaMalloc");
    expect(cudaMemcpy(device, host, sizeof host, 1) == 0, "cudaMemcpy host to device");
    expect(cudaMemcpy(back, device, sizeof back, 2) == 0, "cudaMemcpy device to host");
    expect(std::memcmp(host, back, sizeof host) == 0, "the round trip");
    expect(cudaFree(device) == 0, "cudaFree");

    // Managed memory with CUDA 12's advice and prefetch: a device ordinal, -1 for the host.
    void* managed = nullptr;
    const size_t size = 1 << 16;
    expect(p.managedMemory == 1, "the profile offers managed memory");
    if (p.managedMemory == 1) {
        expect(cudaMallocManaged(&managed, size, 1) == 0, "cudaMallocManaged");
        expect(cudaMemAdvise(managed, size, 3, 0) == 0, "cudaMemAdvise SetPreferredLocation device 0");
        expect(cudaMemAdvise(managed, size, 5, -1) == 0, "cudaMemAdvise SetAccessedBy the host");
        expect(cudaMemAdvise(managed, size, 1, 0) == 0, "cudaMemAdvise SetReadMostly");
        expect(cudaMemAdvise(managed, size, 3, 7) != 0, "cudaMemAdvise to a device that is not there");
        expect(cudaMemPrefetchAsync(managed, size, 0, nullptr) == 0, "cudaMemPrefetchAsync to device 0");
        expect(cudaMemPrefetchAsync(managed, size, -1, nullptr) == 0, "cudaMemPrefetchAsync to the host");
        expect(cudaMemPrefetchAsync(managed, size, 7, nullptr) != 0, "cudaMemPrefetchAsync to no device");
        expect(cudaStreamSynchronize(nullptr) == 0, "cudaStreamSynchronize");
        expect(cudaFree(managed) == 0, "cudaFree managed");
    }
    // Not managed memory: refused, as CUDA 12 does.
    int on_stack = 0;
    expect(cudaMemAdvise(&on_stack, sizeof on_stack, 1, 0) != 0, "cudaMemAdvise on unmanaged memory");
    expect(cudaDeviceSynchronize() == 0, "cudaDeviceSynchronize");

    if (failures) return 1;
    std::printf("PASS\n");
    return 0;
}

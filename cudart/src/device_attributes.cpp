#include "device_attributes.hpp"

#include <unordered_map>

namespace cudabridge::cudart {
namespace {

using reader = int (*)(const cudaDeviceProp&, const cbDeviceProp&);

// FP32 to FP64 throughput (CUDA C++ Programming Guide, arithmetic instructions table): 2 on the
// data-centre chips of compute capability 6.0, 7.0, 8.0, 9.0 and 10.0, 64 on the others.
int fp32_per_fp64(int major, int minor) { return minor == 0 && major != 12 && major >= 6 ? 2 : 64; }

int as_int(size_t v) { return v > 0x7fffffffu ? 0x7fffffff : static_cast<int>(v); }

// cudaDeviceAttr values (CUDA 13, driver_types.h) and where each one's answer lives. The
// attributes CUDA marks reserved are absent: they are answered with cudaErrorInvalidValue.
const std::unordered_map<int, reader>& readers() {
    static const std::unordered_map<int, reader> table = {
        {1, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxThreadsPerBlock; }},
        {2, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxThreadsDim[0]; }},
        {3, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxThreadsDim[1]; }},
        {4, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxThreadsDim[2]; }},
        {5, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxGridSize[0]; }},
        {6, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxGridSize[1]; }},
        {7, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxGridSize[2]; }},
        {8, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.sharedMemPerBlock); }},
        {9, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.totalConstMem); }},
        {10, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.warpSize; }},
        {11, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.memPitch); }},
        {12, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.regsPerBlock; }},
        {13, [](const cudaDeviceProp&, const cbDeviceProp& cb) { return cb.clockRate; }},
        {14, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.textureAlignment); }},
        {15, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.asyncEngineCount > 0 ? 1 : 0; }},  // GPU overlap
        {16, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.multiProcessorCount; }},
        {17, [](const cudaDeviceProp&, const cbDeviceProp&) { return 0; }},  // no display watchdog on an eGPU used for compute,
        {18, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.integrated; }},
        {19, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.canMapHostMemory; }},
        {20, [](const cudaDeviceProp&, const cbDeviceProp&) { return 0; }},  // cudaComputeModeDefault,
        {21, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture1D; }},
        {22, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2D[0]; }},
        {23, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2D[1]; }},
        {24, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture3D[0]; }},
        {25, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture3D[1]; }},
        {26, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture3D[2]; }},
        {27, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DLayered[0]; }},
        {28, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DLayered[1]; }},
        {29, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DLayered[2]; }},
        {30, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.surfaceAlignment); }},
        {31, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.concurrentKernels; }},
        {32, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.ECCEnabled; }},
        {33, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.pciBusID; }},
        {34, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.pciDeviceID; }},
        {35, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.tccDriver; }},
        {36, [](const cudaDeviceProp&, const cbDeviceProp& cb) { return cb.memoryClockRate; }},
        {37, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.memoryBusWidth; }},
        {38, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.l2CacheSize; }},
        {39, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxThreadsPerMultiProcessor; }},
        {40, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.asyncEngineCount; }},
        {41, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.unifiedAddressing; }},
        {42, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture1DLayered[0]; }},
        {43, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture1DLayered[1]; }},
        {45, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DGather[0]; }},
        {46, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DGather[1]; }},
        {47, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture3DAlt[0]; }},
        {48, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture3DAlt[1]; }},
        {49, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture3DAlt[2]; }},
        {50, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.pciDomainID; }},
        {51, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.texturePitchAlignment); }},
        {52, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTextureCubemap; }},
        {53, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTextureCubemapLayered[0]; }},
        {54, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTextureCubemapLayered[1]; }},
        {55, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface1D; }},
        {56, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface2D[0]; }},
        {57, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface2D[1]; }},
        {58, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface3D[0]; }},
        {59, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface3D[1]; }},
        {60, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface3D[2]; }},
        {61, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface1DLayered[0]; }},
        {62, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface1DLayered[1]; }},
        {63, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface2DLayered[0]; }},
        {64, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface2DLayered[1]; }},
        {65, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurface2DLayered[2]; }},
        {66, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurfaceCubemap; }},
        {67, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurfaceCubemapLayered[0]; }},
        {68, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxSurfaceCubemapLayered[1]; }},
        {69, [](const cudaDeviceProp&, const cbDeviceProp&) { return 1 << 27; }},  // removed from the properties in 13,
        {70, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DLinear[0]; }},
        {71, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DLinear[1]; }},
        {72, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DLinear[2]; }},
        {73, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DMipmap[0]; }},
        {74, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture2DMipmap[1]; }},
        {75, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.major; }},
        {76, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.minor; }},
        {77, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxTexture1DMipmap; }},
        {78, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.streamPrioritiesSupported; }},
        {79, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.globalL1CacheSupported; }},
        {80, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.localL1CacheSupported; }},
        {81, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.sharedMemPerMultiprocessor); }},
        {82, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.regsPerMultiprocessor; }},
        {83, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.managedMemory; }},
        {84, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.isMultiGpuBoard; }},
        {85, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.multiGpuBoardGroupID; }},
        {86, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.hostNativeAtomicSupported; }},
        {87, [](const cudaDeviceProp& p, const cbDeviceProp&) { return fp32_per_fp64(p.major, p.minor); }},
        {88, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.pageableMemoryAccess; }},
        {89, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.concurrentManagedAccess; }},
        {90, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.computePreemptionSupported; }},
        {91, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.canUseHostPointerForRegisteredMem; }},
        {95, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.cooperativeLaunch; }},
        {97, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.sharedMemPerBlockOptin); }},
        {98, [](const cudaDeviceProp&, const cbDeviceProp&) { return 0; }},  // cudaDeviceFlushGPUDirectRDMAWrites: no RDMA
        {99, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.hostRegisterSupported; }},
        {100, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.pageableMemoryAccessUsesHostPageTables; }},
        {101, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.directManagedMemAccessFromHost; }},
        {106, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.maxBlocksPerMultiProcessor; }},
        {108, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.persistingL2CacheMaxSize; }},
        {109, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.accessPolicyMaxWindowSize; }},
        {111, [](const cudaDeviceProp& p, const cbDeviceProp&) { return as_int(p.reservedSharedMemPerBlock); }},
        {112, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.sparseCudaArraySupported; }},
        {113, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.hostRegisterReadOnlySupported; }},
        {114, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.timelineSemaphoreInteropSupported; }},
        {115, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.memoryPoolsSupported; }},
        {116, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.gpuDirectRDMASupported; }},
        {117, [](const cudaDeviceProp& p, const cbDeviceProp&) { return static_cast<int>(p.gpuDirectRDMAFlushWritesOptions); }},
        {118, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.gpuDirectRDMAWritesOrdering; }},
        {119, [](const cudaDeviceProp& p, const cbDeviceProp&) { return static_cast<int>(p.memoryPoolSupportedHandleTypes); }},
        {120, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.clusterLaunch; }},
        {121, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.deferredMappingCudaArraySupported; }},
        {125, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.ipcEventSupported; }},
        {126, [](const cudaDeviceProp&, const cbDeviceProp&) { return 1; }},  // memory sync domains: the one default domain
        {130, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.deviceNumaConfig; }},
        {131, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.deviceNumaId; }},
        {133, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.mpsEnabled; }},
        {134, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.hostNumaId; }},
        {135, [](const cudaDeviceProp&, const cbDeviceProp&) { return 0; }},  // D3D12 CIG
        {138, [](const cudaDeviceProp&, const cbDeviceProp&) { return 0; }},  // Vulkan CIG
        {139, [](const cudaDeviceProp& p, const cbDeviceProp&) { return static_cast<int>(p.gpuPciDeviceID); }},
        {140, [](const cudaDeviceProp& p, const cbDeviceProp&) { return static_cast<int>(p.gpuPciSubsystemID); }},
        {142, [](const cudaDeviceProp&, const cbDeviceProp&) { return 0; }},  // host NUMA memory pools
        {143, [](const cudaDeviceProp& p, const cbDeviceProp&) { return p.hostNumaMultinodeIpcSupported; }},
        {144, [](const cudaDeviceProp&, const cbDeviceProp&) { return 0; }},  // host memory pools
        {147, [](const cudaDeviceProp&, const cbDeviceProp&) { return 0; }},  // partial host-native atomics
    };
    return table;
}

}  // namespace

bool attribute_of(const cudaDeviceProp& prop, const cbDeviceProp& runtime_prop, int attribute, int& value) {
    const auto it = readers().find(attribute);
    if (it == readers().end()) return false;
    value = it->second(prop, runtime_prop);
    return true;
}

}  // namespace cudabridge::cudart

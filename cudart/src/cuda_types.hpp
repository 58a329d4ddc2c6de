// The CUDA runtime's ABI as programs built by nvcc see it: the types and enum values that cross
// this library's boundary, declared here so that it builds without a CUDA toolkit. The values and
// the layouts are CUDA 13's (the CUDA Runtime API reference, "Data types used by CUDA Runtime";
// `cudart_abi_test` compares them with the toolkit's own headers where one is installed).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct dim3 {
    unsigned int x, y, z;
};
struct uint3 {
    unsigned int x, y, z;
};

typedef int cudaError_t;
enum : int {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorUnsupportedLimit = 215,
    cudaErrorPeerAccessUnsupported = 217,
    cudaErrorPeerAccessNotEnabled = 705,
    cudaErrorMissingConfiguration = 52,
    cudaErrorDevicesUnavailable = 46,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidKernelImage = 200,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorECCUncorrectable = 214,
    cudaErrorInvalidPtx = 218,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorSymbolNotFound = 500,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorContextIsDestroyed = 709,
    cudaErrorAssert = 710,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorLaunchFailure = 719,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorTimeout = 909,
    cudaErrorUnknown = 999
};

typedef int cudaMemcpyKind;
enum : int {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

typedef int cudaMemoryType;
enum : int {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};

// Host and managed memory flags and advice (driver_types.h).
inline constexpr unsigned cudaHostAllocPortable = 0x01, cudaHostAllocMapped = 0x02, cudaHostAllocWriteCombined = 0x04;
inline constexpr unsigned cudaHostRegisterPortable = 0x01, cudaHostRegisterMapped = 0x02,
                          cudaHostRegisterIoMemory = 0x04, cudaHostRegisterReadOnly = 0x08;
inline constexpr unsigned cudaMemAttachGlobal = 0x01, cudaMemAttachHost = 0x02, cudaMemAttachSingle = 0x04;
typedef int cudaMemoryAdvise;  // cudaMemAdviseSetReadMostly (1) .. cudaMemAdviseUnsetAccessedBy (6)
enum cudaMemLocationType : int {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2,
    cudaMemLocationTypeHostNuma = 3,
    cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation {
    cudaMemLocationType type;
    int id;
};

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct CUkern_st* cudaKernel_t;
// Passed by value (64 bytes), as CUDA's cudaIpcMemHandle_st and cudaIpcEventHandle_st.
typedef struct cudaIpcMemHandle_st {
    char reserved[64];
} cudaIpcMemHandle_t;
typedef struct cudaIpcEventHandle_st {
    char reserved[64];
} cudaIpcEventHandle_t;
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void* user_data);
typedef void (*cudaHostFn_t)(void* user_data);

inline constexpr unsigned cudaStreamNonBlocking = 0x01;
inline constexpr unsigned cudaEventDisableTiming = 0x02;

struct cudaUUID_t {
    char bytes[16];
};

// CUDA 13's cudaDeviceProp, field for field (1008 bytes on LP64).
struct cudaDeviceProp {
    char name[256];
    cudaUUID_t uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int multiProcessorCount;
    int integrated;
    int canMapHostMemory;
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int sparseCudaArraySupported;
    int hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported;
    int memoryPoolsSupported;
    int gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingCudaArraySupported;
    int ipcEventSupported;
    int clusterLaunch;
    int unifiedFunctionPointers;
    int deviceNumaConfig;
    int deviceNumaId;
    int mpsEnabled;
    int hostNumaId;
    unsigned int gpuPciDeviceID;
    unsigned int gpuPciSubsystemID;
    int hostNumaMultinodeIpcSupported;
    int reserved[56];
};

// CUDA 12's cudaDeviceProp (1032 bytes on LP64), what libcudart.so.12 fills: CUDA 13's fields plus
// the ones CUDA 13 removed, in CUDA 12.x's order (CUDA 12.x driver_types.h, cudaDeviceProp; the
// fields after unifiedFunctionPointers are those of CUDA 12.4 and later, which took them from the
// reserved ints that CUDA 12.0 to 12.3 had there, so the struct's size never changed within 12.x).
struct cudaDeviceProp12 {
    char name[256];
    cudaUUID_t uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;  // removed in 13
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int deviceOverlap;  // removed in 13
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;  // removed in 13
    int integrated;
    int canMapHostMemory;
    int computeMode;  // removed in 13
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture1DLinear;  // removed in 13
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;  // removed in 13
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int singleToDoublePrecisionPerfRatio;  // removed in 13
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    int cooperativeMultiDeviceLaunch;  // removed in 13
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int sparseCudaArraySupported;
    int hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported;
    int memoryPoolsSupported;
    int gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingCudaArraySupported;
    int ipcEventSupported;
    int clusterLaunch;
    int unifiedFunctionPointers;
    int deviceNumaConfig;
    int deviceNumaId;
    int mpsEnabled;
    int hostNumaId;
    unsigned int gpuPciDeviceID;
    unsigned int gpuPciSubsystemID;
    int hostNumaMultinodeIpcSupported;
    int reserved[56];
};

static_assert(sizeof(cudaDeviceProp12) == 1032);

struct cudaPointerAttributes {
    cudaMemoryType type;
    int device;
    void* devicePointer;
    void* hostPointer;
    long reserved[8];
};

struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
    int clusterDimMustBeSet;
    int requiredClusterWidth;
    int requiredClusterHeight;
    int requiredClusterDepth;
    int clusterSchedulingPolicyPreference;
    int nonPortableClusterSizeAllowed;
    int reserved[16];
};

// Pitched 2D and 3D memory (driver_types.h).
struct cudaPos {
    size_t x, y, z;
};
struct cudaExtent {
    size_t width, height, depth;
};
struct cudaPitchedPtr {
    void* ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
};
typedef struct cudaArray* cudaArray_t;
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    cudaPos srcPos;
    cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    cudaPos dstPos;
    cudaPitchedPtr dstPtr;
    cudaExtent extent;
    cudaMemcpyKind kind;
};
static_assert(sizeof(cudaMemcpy3DParms) == 160);

// cudaLaunchKernelEx's configuration (driver_types.h): attributes are an id and a 64-byte value.
inline constexpr int launch_attribute_cooperative = 2, launch_attribute_cluster_dimension = 4;
struct cudaLaunchAttribute {
    int id;
    char pad[4];
    unsigned value[16];  // cudaLaunchAttributeValue: the cooperative flag, the cluster's x, y, z, ...
};
static_assert(sizeof(cudaLaunchAttribute) == 72);
struct cudaLaunchConfig {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    struct CUstream_st* stream;
    cudaLaunchAttribute* attrs;
    unsigned int numAttrs;
};

// The nvcc-generated wrapper around an embedded fatbin (`__fatDeviceText`).
struct fatbin_wrapper {
    int magic;  // 0x466243b1
    int version;
    const unsigned long long* data;
    void* filename_or_fatbins;
};

// Stream-ordered allocation (driver_types.h): a pool is a handle; its attributes and properties.
typedef struct cudart_mem_pool* cudaMemPool_t;
enum : int {
    cudaMemPoolReuseFollowEventDependencies = 1,
    cudaMemPoolReuseAllowOpportunistic = 2,
    cudaMemPoolReuseAllowInternalDependencies = 3,
    cudaMemPoolAttrReleaseThreshold = 4,
    cudaMemPoolAttrReservedMemCurrent = 5,
    cudaMemPoolAttrReservedMemHigh = 6,
    cudaMemPoolAttrUsedMemCurrent = 7,
    cudaMemPoolAttrUsedMemHigh = 8
};
struct cudaMemPoolProps {
    int allocType;  // cudaMemAllocationTypePinned (1)
    int handleTypes;
    cudaMemLocation location;
    void* win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};
static_assert(sizeof(cudaMemPoolProps) == 88);
struct cudaMemAccessDesc {
    cudaMemLocation location;
    int flags;  // cudaMemAccessFlagsProtNone (0), ProtRead (1), ProtReadWrite (3)
};

}  // extern "C"

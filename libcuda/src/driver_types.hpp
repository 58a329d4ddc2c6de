// The CUDA driver API's types and the entry points this library implements, declared from CUDA
// 13's documented ABI (the CUDA Driver API reference: the numbers are NVIDIA's, the
// declarations our own). A program compiled against NVIDIA's cuda.h calls these by the same
// symbols with the same layouts.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUlib_st* CUlibrary;
typedef struct CUkern_st* CUkernel;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef struct CUlinkState_st* CUlinkState;
typedef struct CUmemPoolHandle_st* CUmemoryPool;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphNode_st* CUgraphNode;
typedef struct CUgraphExec_st* CUgraphExec;

// Passed by value (64 bytes), as CUDA's CUipcMemHandle_st and CUipcEventHandle_st.
typedef struct CUipcMemHandle_st {
    char reserved[64];
} CUipcMemHandle;
typedef struct CUipcEventHandle_st {
    char reserved[64];
} CUipcEventHandle;

typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;

// CUresult values (CUDA Driver API, "Error Handling").
enum : CUresult {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_ECC_UNCORRECTABLE = 214,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_INVALID_SOURCE = 300,
    CUDA_ERROR_FILE_NOT_FOUND = 301,
    CUDA_ERROR_OPERATING_SYSTEM = 304,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
    CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERROR_NOT_PERMITTED = 800,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_TIMEOUT = 909,
    CUDA_ERROR_UNKNOWN = 999,
};

// cuLaunchKernel's `extra`: a packed argument buffer instead of one pointer per parameter.
#define CU_LAUNCH_PARAM_END ((void*)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)

// CUstream special values, as cudaStreamLegacy and cudaStreamPerThread.
#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

enum { CU_STREAM_DEFAULT = 0x0, CU_STREAM_NON_BLOCKING = 0x1 };
enum {
    CU_EVENT_DEFAULT = 0x0,
    CU_EVENT_BLOCKING_SYNC = 0x1,
    CU_EVENT_DISABLE_TIMING = 0x2,
    CU_EVENT_INTERPROCESS = 0x4
};
enum { CU_MEMHOSTALLOC_PORTABLE = 0x1, CU_MEMHOSTALLOC_DEVICEMAP = 0x2, CU_MEMHOSTALLOC_WRITECOMBINED = 0x4 };
enum { CU_MEM_ATTACH_GLOBAL = 0x1, CU_MEM_ATTACH_HOST = 0x2, CU_MEM_ATTACH_SINGLE = 0x4 };
enum { CU_CTX_SCHED_MASK = 0x07, CU_CTX_MAP_HOST = 0x08, CU_CTX_LMEM_RESIZE_TO_MAX = 0x10, CU_CTX_FLAGS_MASK = 0xFF };

// cuFuncGetAttribute's attributes.
enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
    CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
    CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
};

// cuModuleLoadDataEx's options that carry something back: the logs.
enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
typedef int CUjit_option;

// cuGetProcAddress' flags and what it says about the symbol.
enum {
    CU_GET_PROC_ADDRESS_DEFAULT = 0,
    CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1,
    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2
};
enum {
    CU_GET_PROC_ADDRESS_SUCCESS = 0,
    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
};
typedef int CUdriverProcAddressQueryResult;

// cuPointerGetAttribute's memory types.
enum { CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2, CU_MEMORYTYPE_ARRAY = 3, CU_MEMORYTYPE_UNIFIED = 4 };
enum {
    CU_POINTER_ATTRIBUTE_CONTEXT = 1,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
    CU_POINTER_ATTRIBUTE_HOST_POINTER = 4,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
};

// CUDA arrays, texture and surface objects: a CUarray is the runtime's cudaArray_t, a
// CUtexObject its cudaTextureObject_t.
typedef struct CUarray_st* CUarray;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;
typedef int CUarray_format;
enum : CUarray_format {
    CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
    CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
    CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
    CU_AD_FORMAT_SIGNED_INT8 = 0x08,
    CU_AD_FORMAT_SIGNED_INT16 = 0x09,
    CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
    CU_AD_FORMAT_HALF = 0x10,
    CU_AD_FORMAT_FLOAT = 0x20,
};
typedef struct CUDA_ARRAY_DESCRIPTOR_st {
    size_t Width;
    size_t Height;
    CUarray_format Format;
    unsigned NumChannels;
} CUDA_ARRAY_DESCRIPTOR;
typedef struct CUDA_ARRAY3D_DESCRIPTOR_st {
    size_t Width;
    size_t Height;
    size_t Depth;
    CUarray_format Format;
    unsigned NumChannels;
    unsigned Flags;
} CUDA_ARRAY3D_DESCRIPTOR;
typedef struct CUDA_MEMCPY2D_st {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void* srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void* dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes;
    size_t Height;
} CUDA_MEMCPY2D;
enum {
    CU_RESOURCE_TYPE_ARRAY = 0,
    CU_RESOURCE_TYPE_MIPMAPPED_ARRAY = 1,
    CU_RESOURCE_TYPE_LINEAR = 2,
    CU_RESOURCE_TYPE_PITCH2D = 3
};
typedef struct CUDA_RESOURCE_DESC_st {
    int resType;
    union {
        struct {
            CUarray hArray;
        } array;
        struct {
            void* hMipmappedArray;
        } mipmap;
        struct {
            CUdeviceptr devPtr;
            CUarray_format format;
            unsigned numChannels;
            size_t sizeInBytes;
        } linear;
        struct {
            CUdeviceptr devPtr;
            CUarray_format format;
            unsigned numChannels;
            size_t width;
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned flags;
} CUDA_RESOURCE_DESC;
// CUDA_TEXTURE_DESC's flags.
enum {
    CU_TRSF_READ_AS_INTEGER = 0x01,
    CU_TRSF_NORMALIZED_COORDINATES = 0x02,
    CU_TRSF_SRGB = 0x10,
    CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION = 0x20,
    CU_TRSF_SEAMLESS_CUBEMAP = 0x40
};
typedef struct CUDA_TEXTURE_DESC_st {
    int addressMode[3];
    int filterMode;
    unsigned flags;
    unsigned maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} CUDA_TEXTURE_DESC;

// init and versions
CUresult cuInit(unsigned flags);
CUresult cuDriverGetVersion(int* version);
CUresult cuGetErrorName(CUresult error, const char** name);
CUresult cuGetErrorString(CUresult error, const char** text);
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version, unsigned long long flags,
                             CUdriverProcAddressQueryResult* status);
CUresult cuGetExportTable(const void** table, const CUuuid* id);

// devices
CUresult cuDeviceGet(CUdevice* device, int ordinal);
CUresult cuDeviceGetCount(int* count);
CUresult cuDeviceGetName(char* name, int length, CUdevice device);
CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice device);
CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device);
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device);
CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device);
CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device);
CUresult cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device);
CUresult cuDeviceGetByPCIBusId(CUdevice* device, const char* bus_id);
CUresult cuDeviceCanAccessPeer(int* can, CUdevice device, CUdevice peer);

// contexts
CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device);
CUresult cuDevicePrimaryCtxReset_v2(CUdevice device);
CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active);
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned flags);
CUresult cuCtxCreate_v2(CUcontext* context, unsigned flags, CUdevice device);
typedef struct CUctxCreateParams_st {
    void* execAffinityParams;
    int numExecAffinityParams;
    void* cigParams;
} CUctxCreateParams;
CUresult cuCtxCreate_v4(CUcontext* context, CUctxCreateParams* params, unsigned flags, CUdevice device);
CUresult cuCtxDestroy_v2(CUcontext context);
CUresult cuCtxGetCurrent(CUcontext* context);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuCtxPushCurrent_v2(CUcontext context);
CUresult cuCtxPopCurrent_v2(CUcontext* context);
CUresult cuCtxGetDevice(CUdevice* device);
CUresult cuCtxGetFlags(unsigned* flags);
CUresult cuCtxGetApiVersion(CUcontext context, unsigned* version);
CUresult cuCtxSynchronize(void);
CUresult cuCtxGetLimit(size_t* value, int limit);
CUresult cuCtxSetLimit(int limit, size_t value);

// modules
CUresult cuModuleLoad(CUmodule* module, const char* path);
CUresult cuModuleLoadData(CUmodule* module, const void* image);
CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned count, CUjit_option* options, void** values);
CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatbin);
CUresult cuModuleUnload(CUmodule module);
CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name);
CUresult cuModuleGetGlobal_v2(CUdeviceptr* address, size_t* bytes, CUmodule module, const char* name);

// launches
CUresult cuLaunchKernel(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                        unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream, void** params,
                        void** extra);
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                                   unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream,
                                   void** params);
CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction f);
CUresult cuFuncSetAttribute(CUfunction f, int attribute, int value);
CUresult cuFuncSetCacheConfig(CUfunction f, int config);
CUresult cuFuncGetName(const char** name, CUfunction f);
CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset, size_t* size);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction f, int block_size, size_t shared_bytes);
CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, CUfunction f, size_t (*shared_for)(int),
                                          size_t shared_bytes, int limit);
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid, int* block_size, CUfunction f,
                                                   size_t (*shared_for)(int), size_t shared_bytes, int limit,
                                                   unsigned flags);
// the launch API before CUDA 4
CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z);
CUresult cuFuncSetSharedSize(CUfunction f, unsigned bytes);
CUresult cuParamSetSize(CUfunction f, unsigned bytes);
CUresult cuParamSeti(CUfunction f, int offset, unsigned value);
CUresult cuParamSetf(CUfunction f, int offset, float value);
CUresult cuParamSetv(CUfunction f, int offset, void* bytes, unsigned count);
CUresult cuLaunch(CUfunction f);
CUresult cuLaunchGrid(CUfunction f, int width, int height);
CUresult cuLaunchGridAsync(CUfunction f, int width, int height, CUstream stream);

// linking PTX units (CUjitInputType: 1 is PTX)
CUresult cuLinkCreate_v2(unsigned count, int* options, void** values, CUlinkState* state);
CUresult cuLinkAddData_v2(CUlinkState state, int type, void* data, size_t size, const char* name, unsigned count,
                          int* options, void** values);
CUresult cuLinkAddFile_v2(CUlinkState state, int type, const char* path, unsigned count, int* options, void** values);
CUresult cuLinkComplete(CUlinkState state, void** image, size_t* size);
CUresult cuLinkDestroy(CUlinkState state);

// memory
CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr ptr);
CUresult cuMemAllocHost_v2(void** ptr, size_t bytes);
CUresult cuMemFreeHost(void* ptr);
CUresult cuMemHostAlloc(void** ptr, size_t bytes, unsigned flags);
CUresult cuMemHostRegister_v2(void* ptr, size_t bytes, unsigned flags);
CUresult cuMemHostUnregister(void* ptr);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* device_ptr, void* host_ptr, unsigned flags);
CUresult cuMemAllocManaged(CUdeviceptr* ptr, size_t bytes, unsigned flags);
CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes);
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream);
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count);
CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short value, size_t count);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value, size_t count);
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream);
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count, CUstream stream);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, CUstream stream);
CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* bytes, CUdeviceptr ptr);
CUresult cuPointerGetAttribute(void* data, int attribute, CUdeviceptr ptr);

// arrays, textures, surfaces, pitched memory
CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* descriptor);
CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* descriptor);
CUresult cuArrayDestroy(CUarray array);
CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR* descriptor, CUarray array);
CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR* descriptor, CUarray array);
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* copy);
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* copy);
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* copy, CUstream stream);
CUresult cuMemAllocPitch_v2(CUdeviceptr* ptr, size_t* pitch, size_t width_bytes, size_t height, unsigned element_bytes);
CUresult cuTexObjectCreate(CUtexObject* object, const CUDA_RESOURCE_DESC* resource, const CUDA_TEXTURE_DESC* texture,
                           const void* view);
CUresult cuTexObjectDestroy(CUtexObject object);
CUresult cuSurfObjectCreate(CUsurfObject* object, const CUDA_RESOURCE_DESC* resource);
CUresult cuSurfObjectDestroy(CUsurfObject object);

// context-independent loading (CUDA 12): a CUkernel is its library module's CUfunction
CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* options, void** values, unsigned count,
                           void* library_options, void** library_values, unsigned library_count);
CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* path, CUjit_option* options, void** values,
                               unsigned count, void* library_options, void** library_values, unsigned library_count);
CUresult cuLibraryUnload(CUlibrary library);
CUresult cuLibraryGetModule(CUmodule* module, CUlibrary library);
CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name);
CUresult cuLibraryGetGlobal(CUdeviceptr* address, size_t* bytes, CUlibrary library, const char* name);
CUresult cuKernelGetFunction(CUfunction* function, CUkernel kernel);
CUresult cuKernelGetLibrary(CUlibrary* library, CUkernel kernel);
CUresult cuKernelGetAttribute(int* value, int attribute, CUkernel kernel, CUdevice device);
CUresult cuKernelSetAttribute(int attribute, int value, CUkernel kernel, CUdevice device);
CUresult cuKernelGetName(const char** name, CUkernel kernel);
CUresult cuKernelGetParamInfo(CUkernel kernel, size_t index, size_t* offset, size_t* size);

// graphs and stream capture (CUstreamCaptureMode/Status: the runtime's numbers)
typedef struct CUDA_KERNEL_NODE_PARAMS_v2_st {
    CUfunction func;
    unsigned gridDimX, gridDimY, gridDimZ;
    unsigned blockDimX, blockDimY, blockDimZ;
    unsigned sharedMemBytes;
    void** kernelParams;
    void** extra;
    CUkernel kern;
    CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS;
CUresult cuGraphCreate(CUgraph* graph, unsigned flags);
CUresult cuGraphDestroy(CUgraph graph);
CUresult cuGraphClone(CUgraph* clone, CUgraph original);
CUresult cuGraphGetNodes(CUgraph graph, CUgraphNode* nodes, size_t* count);
CUresult cuGraphAddEmptyNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count);
CUresult cuGraphAddHostNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                            const void* params);
CUresult cuGraphAddKernelNode_v2(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                 const CUDA_KERNEL_NODE_PARAMS* params);
CUresult cuGraphAddDependencies_v2(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to, const void* edges,
                                   size_t count);
CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags);
CUresult cuGraphExecDestroy(CUgraphExec exec);
CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream);
CUresult cuGraphDebugDotPrint(CUgraph graph, const char* path, unsigned flags);
CUresult cuStreamBeginCapture_v2(CUstream stream, int mode);
CUresult cuStreamEndCapture(CUstream stream, CUgraph* graph);
CUresult cuStreamIsCapturing(CUstream stream, int* status);

// stream-ordered allocation (CUmemPoolProps is the runtime's cudaMemPoolProps)
CUresult cuMemAllocAsync(CUdeviceptr* ptr, size_t bytes, CUstream stream);
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* ptr, size_t bytes, CUmemoryPool pool, CUstream stream);
CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream stream);
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice device);
CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice device);
CUresult cuDeviceSetMemPool(CUdevice device, CUmemoryPool pool);
CUresult cuMemPoolCreate(CUmemoryPool* pool, const void* props);
CUresult cuMemPoolDestroy(CUmemoryPool pool);
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void* value);
CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attribute, void* value);
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep);

// cuLaunchKernelEx: a launch with attributes (CUlaunchAttributeID: 2 cooperative, 4 cluster)
typedef struct CUlaunchAttribute_st {
    int id;
    char pad[4];
    unsigned value[16];
} CUlaunchAttribute;
typedef struct CUlaunchConfig_st {
    unsigned gridDimX, gridDimY, gridDimZ;
    unsigned blockDimX, blockDimY, blockDimZ;
    unsigned sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute* attrs;
    unsigned numAttrs;
} CUlaunchConfig;
CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params, void** extra);

// more of contexts and streams
CUresult cuCtxGetStreamPriorityRange(int* least, int* greatest);
CUresult cuCtxResetPersistingL2Cache(void);
CUresult cuCtxGetCacheConfig(int* config);
CUresult cuCtxSetCacheConfig(int config);
CUresult cuStreamAddCallback(CUstream stream, void (*callback)(CUstream, CUresult, void*), void* data, unsigned flags);
CUresult cuStreamAttachMemAsync(CUstream stream, CUdeviceptr ptr, size_t length, unsigned flags);
CUresult cuStreamGetCtx(CUstream stream, CUcontext* context);
CUresult cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned flags);
CUresult cuFuncGetModule(CUmodule* module, CUfunction f);

// copies and fills in more dimensions, arrays in 1D, peers
typedef struct CUDA_MEMCPY3D_st {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void* srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    void* reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void* dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    void* reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* copy);
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* copy, CUstream stream);
// The graph's nodes of every other kind, and their parameters. Structs that share the runtime's
// layout (CUDA_HOST_NODE_PARAMS, CUDA_MEM_ALLOC_NODE_PARAMS, CUgraphEdgeData,
// CUgraphExecUpdateResultInfo, CUDA_GRAPH_INSTANTIATE_PARAMS) are passed as the runtime's.
typedef struct CUDA_MEMSET_NODE_PARAMS_st {
    CUdeviceptr dst;
    size_t pitch;
    unsigned value;
    unsigned elementSize;
    size_t width;
    size_t height;
} CUDA_MEMSET_NODE_PARAMS;
enum {
    CU_GRAPH_NODE_TYPE_KERNEL = 0,
    CU_GRAPH_NODE_TYPE_MEMCPY = 1,
    CU_GRAPH_NODE_TYPE_MEMSET = 2,
    CU_GRAPH_NODE_TYPE_HOST = 3,
    CU_GRAPH_NODE_TYPE_GRAPH = 4,
    CU_GRAPH_NODE_TYPE_EMPTY = 5,
    CU_GRAPH_NODE_TYPE_WAIT_EVENT = 6,
    CU_GRAPH_NODE_TYPE_EVENT_RECORD = 7
};
CUresult cuGraphAddMemcpyNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                              const CUDA_MEMCPY3D* copy, CUcontext context);
CUresult cuGraphAddMemsetNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                              const CUDA_MEMSET_NODE_PARAMS* fill, CUcontext context);
CUresult cuGraphMemcpyNodeGetParams(CUgraphNode node, CUDA_MEMCPY3D* copy);
CUresult cuGraphMemcpyNodeSetParams(CUgraphNode node, const CUDA_MEMCPY3D* copy);
CUresult cuGraphMemsetNodeGetParams(CUgraphNode node, CUDA_MEMSET_NODE_PARAMS* fill);
CUresult cuGraphMemsetNodeSetParams(CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS* fill);
CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec exec, CUgraphNode node, const CUDA_MEMCPY3D* copy,
                                        CUcontext context);
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec exec, CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS* fill,
                                        CUcontext context);
CUresult cuGraphAddChildGraphNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                  CUgraph child);
CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode node, CUgraph* child);
CUresult cuGraphAddEventRecordNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                   CUevent event);
CUresult cuGraphAddEventWaitNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                 CUevent event);
CUresult cuGraphNodeGetType(CUgraphNode node, int* type);
CUresult cuGraphGetRootNodes(CUgraph graph, CUgraphNode* nodes, size_t* count);
CUresult cuGraphGetEdges(CUgraph graph, CUgraphNode* from, CUgraphNode* to, size_t* count);
CUresult cuGraphNodeGetDependencies(CUgraphNode node, CUgraphNode* dependencies, size_t* count);
CUresult cuGraphNodeGetDependentNodes(CUgraphNode node, CUgraphNode* dependents, size_t* count);
CUresult cuGraphDestroyNode(CUgraphNode node);
CUresult cuGraphExecUpdate_v2(CUgraphExec exec, CUgraph graph, void* result_info);
CUresult cuGraphNodeSetEnabled(CUgraphExec exec, CUgraphNode node, unsigned enabled);
CUresult cuGraphNodeGetEnabled(CUgraphExec exec, CUgraphNode node, unsigned* enabled);
CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height);
CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height);
CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned value, size_t width, size_t height);
CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height,
                           CUstream stream);
CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height,
                            CUstream stream);
CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned value, size_t width, size_t height,
                            CUstream stream);
CUresult cuMemcpyHtoA_v2(CUarray dst, size_t offset, const void* src, size_t bytes);
CUresult cuMemcpyAtoH_v2(void* dst, CUarray src, size_t offset, size_t bytes);
CUresult cuMemcpyHtoAAsync_v2(CUarray dst, size_t offset, const void* src, size_t bytes, CUstream stream);
CUresult cuMemcpyAtoHAsync_v2(void* dst, CUarray src, size_t offset, size_t bytes, CUstream stream);
CUresult cuMemcpyDtoA_v2(CUarray dst, size_t offset, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray src, size_t offset, size_t bytes);
CUresult cuMemcpyAtoA_v2(CUarray dst, size_t dst_offset, CUarray src, size_t src_offset, size_t bytes);
CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context, size_t bytes);
CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context, size_t bytes,
                           CUstream stream);

// more of pointers, managed memory, occupancy, contexts, modules and streams
typedef struct CUmemLocation_st {
    int type;  // CUmemLocationType: the runtime's numbers
    int id;
} CUmemLocation;
CUresult cuPointerGetAttributes(unsigned count, int* attributes, void** data, CUdeviceptr ptr);
CUresult cuMemHostGetFlags(unsigned* flags, void* ptr);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr ptr, size_t bytes, CUmemLocation location, unsigned flags, CUstream stream);
CUresult cuMemAdvise_v2(CUdeviceptr ptr, size_t bytes, int advice, CUmemLocation location);

// Virtual memory management (cuda.h's layouts).
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct CUmemAllocationProp_st {
    int type;                  // CUmemAllocationType: 1 = pinned (device memory)
    int requestedHandleTypes;  // CUmemAllocationHandleType: 0 = none
    CUmemLocation location;    // CU_MEM_LOCATION_TYPE_DEVICE (1) and a device ordinal
    void* win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} CUmemAllocationProp;
typedef struct CUmemAccessDesc_st {
    CUmemLocation location;
    int flags;  // CUmemAccess_flags: 0 none, 1 read, 3 read-write
} CUmemAccessDesc;
enum { CU_MEM_ALLOCATION_TYPE_PINNED = 1, CU_MEM_LOCATION_TYPE_DEVICE = 1, CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3 };
CUresult cuMemGetAllocationGranularity(size_t* granularity, const CUmemAllocationProp* prop, int option);
CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags);
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                     unsigned long long flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags);
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count);
CUresult cuMemGetAccess(unsigned long long* flags, const CUmemLocation* location, CUdeviceptr ptr);
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle* handle, void* addr);
CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp* prop, CUmemGenericAllocationHandle handle);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, CUfunction f, int block_size,
                                                              size_t shared_bytes, unsigned flags);
CUresult cuCtxGetId(CUcontext context, unsigned long long* id);
CUresult cuCtxSetFlags(unsigned flags);
CUresult cuModuleGetLoadingMode(int* mode);
CUresult cuStreamGetId(CUstream stream, unsigned long long* id);

// streams and events
CUresult cuStreamCreate(CUstream* stream, unsigned flags);
CUresult cuStreamCreateWithPriority(CUstream* stream, unsigned flags, int priority);
CUresult cuStreamDestroy_v2(CUstream stream);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuStreamQuery(CUstream stream);
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags);
CUresult cuStreamGetFlags(CUstream stream, unsigned* flags);
CUresult cuStreamGetPriority(CUstream stream, int* priority);
CUresult cuLaunchHostFunc(CUstream stream, void (*fn)(void*), void* data);
CUresult cuEventCreate(CUevent* event, unsigned flags);
CUresult cuIpcGetMemHandle(CUipcMemHandle* handle, CUdeviceptr dptr);
CUresult cuIpcOpenMemHandle(CUdeviceptr* dptr, CUipcMemHandle handle, unsigned flags);
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr* dptr, CUipcMemHandle handle, unsigned flags);
CUresult cuIpcCloseMemHandle(CUdeviceptr dptr);
CUresult cuIpcGetEventHandle(CUipcEventHandle* handle, CUevent event);
CUresult cuIpcOpenEventHandle(CUevent* event, CUipcEventHandle handle);
CUresult cuEventDestroy_v2(CUevent event);
CUresult cuEventRecord(CUevent event, CUstream stream);
CUresult cuEventSynchronize(CUevent event);
CUresult cuEventQuery(CUevent event);
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end);
CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end);

}  // extern "C"

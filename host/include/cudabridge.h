/* cudabridge.h: the CUDA-style runtime API for an NVIDIA GPU behind a USB4 / Thunderbolt link.
 *
 * It follows the CUDA runtime's semantics under a cb prefix (no symbol clashes with libcudart):
 * devices are numbered from 0 and each thread has a current device; work on streams runs in
 * order and asynchronously; the default stream (0) is the legacy default stream, which waits
 * for work queued earlier on every blocking stream and makes them wait for it; cbMemcpy and
 * cbMemset are synchronous, their Async forms are not; events time work on the device (on a
 * simulated GPU that time is modeled: cbDeviceProp.isSimulated says so). Errors: each call
 * returns a cbError_t and records it for cbGetLastError; an error that leaves a device unusable
 * (device lost, a faulting kernel, a reset that dropped its memory) is sticky: every later call
 * on that device returns it until cbDeviceReset, as in CUDA.
 *
 * Every function may be called from any thread. cbInit is optional (the first call initialises
 * the runtime, connecting the eGPU if needed); cbShutdown releases everything.
 *
 * Devices: the runtime attaches to the eGPUs already connected (cudabridge-cli connect) and, when
 * none is, runs the connection sequence on the first one it finds (see egpu_safety.h). Plugins,
 * database and policy follow the CUDABRIDGE_* environment and the stored settings.
 */
#ifndef CUDABRIDGE_RUNTIME_H
#define CUDABRIDGE_RUNTIME_H

#include <cudabridge/builtin_kernels.h>
#include <cudabridge/gpu.h>
#include <cudabridge/host_kernels.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes; where CUDA has the same error, the same number. */
typedef enum cbError {
    cbSuccess = 0,
    cbErrorInvalidValue = 1,
    cbErrorMemoryAllocation = 2,
    cbErrorInitializationError = 3,
    cbErrorNotSupported = 801,
    cbErrorInvalidDeviceFunction = 98,
    cbErrorNoDevice = 100,
    cbErrorInvalidDevice = 101,
    cbErrorInvalidKernelImage = 200,
    cbErrorInvalidResourceHandle = 400,
    cbErrorNotFound = 500,
    cbErrorNotReady = 600,
    cbErrorIllegalAddress = 700,
    cbErrorAssert = 710, /* a kernel's assert() failed; sticky, as in CUDA */
    cbErrorLaunchTimeout = 702,
    cbErrorLaunchFailure = 719,
    cbErrorNotPermitted = 800,
    cbErrorTimeout = 909,
    /* CudaBridge's own, for what an eGPU link adds (numbers CUDA does not use) */
    cbErrorDeviceLost = 10001, /* unplugged, disconnected (here or by another process), gone */
    cbErrorLinkDown = 10002,
    cbErrorDmaLimit = 10003,     /* the IOMMU (Apple DART) cannot map the request */
    cbErrorIntegrity = 10004,    /* an end-to-end CRC check of a copy failed */
    cbErrorThermalLimit = 10005, /* emergency stop: the GPU is over its thermal limit */
    cbErrorDeviceFailed = 10006, /* recovery gave up; cbDeviceReset to try again */
    cbErrorDeviceReset = 10007,  /* the device was reset and its memory is gone */
    cbErrorRefused = 10008,      /* the safety policy refused the device */
    cbErrorUnknown = 999
} cbError_t;

typedef enum cbMemcpyKind {
    cbMemcpyHostToHost = 0,
    cbMemcpyHostToDevice = 1,
    cbMemcpyDeviceToHost = 2,
    cbMemcpyDeviceToDevice = 3,
    cbMemcpyDefault = 4 /* inferred from the pointers */
} cbMemcpyKind;

/* The copy kinds under their upper-case names, as the original CudaBridge API spelled them. */
#define CB_MEMCPY_HOST_TO_HOST cbMemcpyHostToHost
#define CB_MEMCPY_HOST_TO_DEVICE cbMemcpyHostToDevice
#define CB_MEMCPY_DEVICE_TO_HOST cbMemcpyDeviceToHost
#define CB_MEMCPY_DEVICE_TO_DEVICE cbMemcpyDeviceToDevice

typedef struct cbStream_st* cbStream_t; /* 0 is the default stream */
typedef struct cbEvent_st* cbEvent_t;
typedef struct cbModule_st* cbModule_t;

/* Handles another process opens (CUDA's cudaIpcMemHandle_t and cudaIpcEventHandle_t): 64 opaque
 * bytes a program passes to the other process by any means (a pipe, shared memory, a file). */
typedef struct cbIpcMemHandle_st {
    char reserved[64];
} cbIpcMemHandle_t;
typedef struct cbIpcEventHandle_st {
    char reserved[64];
} cbIpcEventHandle_t;

/* cbEventCreateWithFlags' flags, as CUDA's cudaEvent* flags. */
#define cbEventDefault 0x0u
#define cbEventBlockingSync 0x1u
#define cbEventDisableTiming 0x2u
#define cbEventInterprocess 0x4u /* other processes may wait on it (cbIpcGetEventHandle) */

typedef struct cbDim3 {
    unsigned int x, y, z;
} cbDim3;

/* Stream flags (cbStreamCreateWithFlags). */
#define cbStreamDefault 0x0u
#define cbStreamNonBlocking 0x1u /* does not synchronize with the default stream */

/* Host-memory flags (cbHostRegister, cbMallocHost ignores them). */
#define cbHostRegisterDefault 0x0u

/* Managed-memory flags (cbMallocManaged), as CUDA's cudaMemAttachGlobal / cudaMemAttachHost. */
#define cbMemAttachGlobal 0x1u
#define cbMemAttachHost 0x2u

/* What cbDeviceGetAttribute answers: the GPU family's memory features (1 or 0). */
typedef enum cbDeviceAttr {
    cbDevAttrManagedMemory = 1,    /* cbMallocManaged gives memory */
    cbDevAttrCanMapHostMemory = 2, /* kernels reach pinned host memory (cbHostGetDevicePointer) */
    /* Kernels reach pinned host memory at the host pointer itself (unified addressing). */
    cbDevAttrCanUseHostPointerForRegisteredMem = 3,
    /* Host code may touch managed memory while kernels run. 0 on every family today: synchronize
     * before the host touches managed memory a kernel may be using. */
    cbDevAttrConcurrentManagedAccess = 4
} cbDeviceAttr;

typedef struct cbDeviceProp {
    char name[256];
    char uuid[64];
    char architecture[32];
    char backend[32]; /* "userspace", "kernel-driver" */
    char pciBusId[32];
    int pciVendorId;
    int pciDeviceId;
    int major, minor; /* compute capability */
    int multiProcessorCount;
    int warpSize;
    size_t totalGlobalMem;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t sharedMemPerBlock;
    int memoryBusWidth;
    int l2CacheSize;
    int clockRate;       /* kHz, as CUDA reports it */
    int memoryClockRate; /* kHz */
    int isSimulated;     /* 1: a simulated GPU; timings and link figures are modeled */
    /* the link */
    char linkName[64];       /* "Thunderbolt 4", ... */
    double linkBandwidthGBs; /* usable host-to-device payload bandwidth */
    int pcieLinkGen, pcieLinkWidth;
} cbDeviceProp;

/* A kernel argument (the SDK's cb_kernel_arg): build them with the helpers below. */
typedef cb_kernel_arg cbKernelArg;
typedef cb_tensor_desc cbTensor;

static inline cbKernelArg cbArgPointer(const void* devicePtr) {
    cbKernelArg a;
    a.type = CB_ARG_DEVICE_PTR;
    a.size = 0;
    a.value.device_ptr = (uint64_t)(uintptr_t)devicePtr;
    return a;
}
static inline cbKernelArg cbArgInt(int64_t v) {
    cbKernelArg a;
    a.type = CB_ARG_INT64;
    a.size = 0;
    a.value.i64 = v;
    return a;
}
static inline cbKernelArg cbArgUInt(uint64_t v) {
    cbKernelArg a;
    a.type = CB_ARG_UINT64;
    a.size = 0;
    a.value.u64 = v;
    return a;
}
static inline cbKernelArg cbArgDouble(double v) {
    cbKernelArg a;
    a.type = CB_ARG_FLOAT64;
    a.size = 0;
    a.value.f64 = v;
    return a;
}
/* A tensor operand of a built-in kernel; `t` must stay valid until the launch call returns. */
static inline cbKernelArg cbArgTensor(const cbTensor* t) {
    cbKernelArg a;
    a.type = CB_ARG_BYTES;
    a.size = (uint32_t)sizeof(cbTensor);
    a.value.bytes = t;
    return a;
}
/* A contiguous 1-D tensor of `count` elements at devicePtr. */
static inline cbTensor cbTensor1D(const void* devicePtr, cb_dtype dtype, int64_t count) {
    cbTensor t;
    int i;
    t.device_ptr = (uint64_t)(uintptr_t)devicePtr;
    t.dtype = dtype;
    t.ndim = 1;
    for (i = 0; i < CB_TENSOR_MAX_DIMS; ++i) t.shape[i] = t.strides[i] = 0;
    t.shape[0] = count;
    t.strides[0] = 1;
    return t;
}

/* ---- runtime ------------------------------------------------------------------------------ */
CB_API cbError_t cbInit(void);
CB_API cbError_t cbShutdown(void);
/* The plugin ABI this runtime speaks, 1000 * major + 10 * minor (17 -> 1.17): what `cudabridge-cli
 * version` prints as "plugin ABI". */
CB_API cbError_t cbRuntimeGetVersion(int* version);

/* ---- devices ------------------------------------------------------------------------------ */
CB_API cbError_t cbGetDeviceCount(int* count);
CB_API cbError_t cbSetDevice(int device);
CB_API cbError_t cbGetDevice(int* device);
CB_API cbError_t cbGetDeviceProperties(cbDeviceProp* prop, int device);
/* One of the features above, as the device's GPU family gives it (asked once, then remembered). */
CB_API cbError_t cbDeviceGetAttribute(int* value, cbDeviceAttr attr, int device);
CB_API cbError_t cbDeviceSynchronize(void);
/* The resources a kernel may use on the current device, as CUDA's cudaLimit: the per-thread call
 * stack (recursion) and the device heap of malloc/free/new/delete in kernels, in bytes. The
 * defaults are CUDA's (1 KiB, 8 MiB); a value set applies to the launches after it (the heap is
 * sized once, at the first launch that needs it). */
typedef enum cbLimit { cbLimitStackSize = 0, cbLimitMallocHeapSize = 2 } cbLimit;
CB_API cbError_t cbDeviceSetLimit(cbLimit limit, size_t value);
CB_API cbError_t cbDeviceGetLimit(size_t* value, cbLimit limit);
/* Frees everything this process holds on the current device and clears its sticky error (and a
 * "failed" mark from the safety supervisor, after a hard reset of the GPU). */
CB_API cbError_t cbDeviceReset(void);

/* ---- memory ------------------------------------------------------------------------------- */
CB_API cbError_t cbMalloc(void** devPtr, size_t size);
CB_API cbError_t cbFree(void* devPtr);
/* Pinned host memory: mapped for the device once, so copies skip staging and Async copies
 * return as soon as they are queued. */
CB_API cbError_t cbMallocHost(void** ptr, size_t size);
CB_API cbError_t cbFreeHost(void* ptr);
CB_API cbError_t cbHostRegister(void* ptr, size_t size, unsigned int flags);
CB_API cbError_t cbHostUnregister(void* ptr);
/* Where kernels reach pinned host memory (cbMallocHost, cbHostRegister): zero-copy, as
 * cudaHostGetDevicePointer. With unified addressing it is the host pointer itself. `flags` must be
 * 0. cbErrorInvalidValue when `host` is not pinned; cbErrorNotSupported when the GPU family's
 * kernels cannot reach host memory (or it predates ABI 1.9). */
CB_API cbError_t cbHostGetDevicePointer(void** devPtr, void* host, unsigned int flags);
/* Managed memory (cudaMallocManaged): one pointer for host code and kernels; cbFree releases it,
 * and copies (cbMemcpy, cbMemset) take it on either side. On a simulated GPU it is host memory
 * the kernels reach over the link (it takes no VRAM; their accesses cost link time); on a real
 * GPU the driver migrates its pages. The host must not touch it while kernels that use it run:
 * synchronize first (cbDevAttrConcurrentManagedAccess is 0). `flags`: cbMemAttachGlobal or
 * cbMemAttachHost. cbErrorNotSupported when the GPU family gives none (before ABI 1.9). */
CB_API cbError_t cbMallocManaged(void** ptr, size_t size, unsigned int flags);
CB_API cbError_t cbMemcpy(void* dst, const void* src, size_t count, cbMemcpyKind kind);
CB_API cbError_t cbMemcpyAsync(void* dst, const void* src, size_t count, cbMemcpyKind kind, cbStream_t stream);
CB_API cbError_t cbMemset(void* devPtr, int value, size_t count);
CB_API cbError_t cbMemsetAsync(void* devPtr, int value, size_t count, cbStream_t stream);
/* Free counts memory the caching allocator holds for reuse. */
CB_API cbError_t cbMemGetInfo(size_t* free, size_t* total);
/* The host address at which the CPU reads and writes the device memory [devPtr, devPtr + size)
 * directly, through the GPU's BAR1 VRAM aperture (GPUDirect's BAR1 mappings, gdrcopy's gdr_map):
 * no copy. The range must lie in one allocation, and it stays mapped while that allocation lives.
 * Loads and stores are not ordered with the device's work: synchronize before reading what a
 * kernel wrote, and before a kernel reads what the host wrote. On a simulated eGPU the address is
 * the simulated VRAM in this process. cbErrorInvalidValue for a range outside an allocation;
 * cbErrorNotSupported where the range is not host-visible (past a 256 MiB BAR1 on a board without
 * resizable BAR, the NVIDIA driver backend, a GPU family before ABI 1.11). */
CB_API cbError_t cbMemGetHostPointer(void** hostPtr, const void* devPtr, size_t size);
/* Nanoseconds the current device has spent in the kernels this process launched on it, completed
 * kernels only, the CRC kernels that check copies included: modeled on a simulated eGPU
 * (cbDeviceProp.isSimulated), as its events are.
 * cbErrorNotSupported where the GPU family cannot tell (a family before ABI 1.10, the NVIDIA
 * driver): time kernels with events there. */
CB_API cbError_t cbDeviceGetKernelTime(unsigned long long* ns);

/* ---- streams and events ------------------------------------------------------------------- */
CB_API cbError_t cbStreamCreate(cbStream_t* stream);
CB_API cbError_t cbStreamCreateWithFlags(cbStream_t* stream, unsigned int flags);
CB_API cbError_t cbStreamDestroy(cbStream_t stream);
CB_API cbError_t cbStreamSynchronize(cbStream_t stream);
CB_API cbError_t cbStreamQuery(cbStream_t stream); /* cbSuccess or cbErrorNotReady */
CB_API cbError_t cbStreamWaitEvent(cbStream_t stream, cbEvent_t event, unsigned int flags);
CB_API cbError_t cbEventCreate(cbEvent_t* event);
CB_API cbError_t cbEventDestroy(cbEvent_t event);
CB_API cbError_t cbEventRecord(cbEvent_t event, cbStream_t stream);
CB_API cbError_t cbEventSynchronize(cbEvent_t event);
CB_API cbError_t cbEventQuery(cbEvent_t event);
/* Milliseconds between two recorded events, from the device's timer (modeled on a simulator). */
CB_API cbError_t cbEventElapsedTime(float* ms, cbEvent_t start, cbEvent_t end);
/* cbEventCreate with CUDA's flags (cbEvent*); cbErrorInvalidValue for others. An interprocess event
 * must disable timing, as CUDA requires. */
CB_API cbError_t cbEventCreateWithFlags(cbEvent_t* event, unsigned int flags);

/* ---- between processes (CUDA IPC) --------------------------------------------------------- */
/* A handle to the device allocation holding `devPtr`, for another process of the same user to
 * open. Work queued before is finished first. cbErrorNotSupported where the GPU family cannot
 * share memory (before ABI 1.17). */
CB_API cbError_t cbIpcGetMemHandle(cbIpcMemHandle_t* handle, void* devPtr);
/* Maps another process's allocation into this one: *devPtr reaches the same bytes. Opening a
 * handle again gives the same pointer; each opening needs its cbIpcCloseMemHandle. A handle this
 * process made, or one whose memory was freed, is refused (cbErrorInvalidValue,
 * cbErrorInvalidResourceHandle). `flags` is CUDA's cudaIpcMemLazyEnablePeerAccess or 0. */
CB_API cbError_t cbIpcOpenMemHandle(void** devPtr, cbIpcMemHandle_t handle, unsigned int flags);
CB_API cbError_t cbIpcCloseMemHandle(void* devPtr);
/* A handle to an event made with cbEventInterprocess (cbErrorInvalidResourceHandle otherwise).
 * In the process that opens it, waits (cbStreamWaitEvent, cbEventSynchronize, cbEventQuery) wait
 * for the latest record by either process, and records there are seen here. A wait for another
 * process's record blocks the calling thread until that record's work is done. */
CB_API cbError_t cbIpcGetEventHandle(cbIpcEventHandle_t* handle, cbEvent_t event);
CB_API cbError_t cbIpcOpenEventHandle(cbEvent_t* event, cbIpcEventHandle_t handle);

/* ---- kernels ------------------------------------------------------------------------------ */
/* A built-in kernel (builtin_kernels.h) by name: `dtype` is the output's dtype. */
CB_API cbError_t cbLaunchBuiltin(const char* name, cb_dtype dtype, const cbKernelArg* args, size_t numArgs,
                                 cbStream_t stream);
/* User code: PTX, CUBIN, fatbin or CUDA source on the kernel-driver backend; on a simulated GPU,
 * a cb_host_kernel_module of C functions (host_kernels.h; pass sizeof(cb_host_kernel_module)). */
CB_API cbError_t cbModuleLoadData(cbModule_t* module, const void* image, size_t size, cb_module_format format);
CB_API cbError_t cbModuleUnload(cbModule_t module);
/* A module variable (a CUDA __device__ or __constant__ variable) by name, as cuModuleGetGlobal:
 * its device address and size (either may be NULL). Copies to and from it (cbMemcpy) reach what
 * the module's kernels read. cbErrorNotFound when the module defines no such variable. */
CB_API cbError_t cbModuleGetGlobal(void** devPtr, size_t* bytes, cbModule_t module, const char* name);
/* Where parameter `index` of kernel `name` lies in its parameter buffer, and its size in bytes, as
 * cuFuncGetParamInfo gives them (either may be NULL): what a caller needs to copy a launch's
 * kernelParams and replay them later. cbErrorNotFound for no such kernel, cbErrorInvalidValue
 * past its last parameter. */
CB_API cbError_t cbModuleGetParamInfo(cbModule_t module, const char* name, size_t index, size_t* offset, size_t* size);
CB_API cbError_t cbModuleLaunchKernel(cbModule_t module, const char* name, cbDim3 grid, cbDim3 block,
                                      const cbKernelArg* args, size_t numArgs, size_t sharedMem, cbStream_t stream);
/* The same with the arguments as cuLaunchKernel's kernelParams: one pointer per parameter of the
 * kernel, each to a value of that parameter's size; the GPU family lays them out by the kernel's
 * own parameter list. A NULL module searches the loaded modules as cbLaunchKernel does. */
CB_API cbError_t cbModuleLaunchKernelParams(cbModule_t module, const char* name, cbDim3 grid, cbDim3 block,
                                            void** kernelParams, size_t sharedMem, cbStream_t stream);
/* A cooperative launch (cudaLaunchCooperativeKernel): the grid's blocks are all resident at once
 * and may wait for each other (cooperative groups' grid.sync()); otherwise as
 * cbModuleLaunchKernelParams. cbErrorNotSupported when the GPU family cannot run one. */
CB_API cbError_t cbModuleLaunchCooperativeKernel(cbModule_t module, const char* name, cbDim3 grid, cbDim3 block,
                                                 void** kernelParams, size_t sharedMem, cbStream_t stream);
/* Launches `name` from the modules loaded on the current device (the newest first). */
CB_API cbError_t cbLaunchKernel(const char* name, cbDim3 grid, cbDim3 block, const cbKernelArg* args, size_t numArgs,
                                size_t sharedMem, cbStream_t stream);

/* ---- errors ------------------------------------------------------------------------------- */
/* The calling thread's last error, reset to cbSuccess (a sticky error comes back at once). */
CB_API cbError_t cbGetLastError(void);
CB_API cbError_t cbPeekAtLastError(void);
CB_API const char* cbGetErrorName(cbError_t error);
CB_API const char* cbGetErrorString(cbError_t error);
/* The message of the calling thread's last failed call ("" when none): what failed and why. */
CB_API const char* cbGetLastErrorMessage(void);

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_RUNTIME_H */

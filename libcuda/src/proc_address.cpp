// cuGetProcAddress: a driver function by its base name, in the form the caller's CUDA version
// declares (cuMemAlloc is cuMemAlloc_v2 from CUDA 3.2 on, cuCtxCreate cuCtxCreate_v4 from 12.5).
// Functions this library implements come from the table; any other exported name (each answers
// CUDA_ERROR_NOT_SUPPORTED and names itself) by its symbol, so that a caller resolving every entry
// point up front still starts.
#include "contexts.hpp"
#include "results.hpp"

#include <dlfcn.h>

#include <initializer_list>
#include <string>

extern "C" {
CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version, unsigned long long flags);
}

namespace {

struct versioned {
    const char* name;
    int since;  // the CUDA version (1000 * major + 10 * minor) that introduced this form
    void* function;
    const char* symbol;  // its exported name, whose _ptsz / _ptds form a per-thread caller gets
};

#define CB_FORM(name, since, symbol) \
    { name, since, reinterpret_cast<void*>(&symbol), #symbol }

// Newest form first for each name.
const versioned forms[] = {
    CB_FORM("cuInit", 2000, cuInit),
    CB_FORM("cuDriverGetVersion", 2020, cuDriverGetVersion),
    CB_FORM("cuGetErrorName", 6000, cuGetErrorName),
    CB_FORM("cuGetErrorString", 6000, cuGetErrorString),
    CB_FORM("cuGetProcAddress", 12000, cuGetProcAddress_v2),
    CB_FORM("cuGetProcAddress", 11030, cuGetProcAddress),
    CB_FORM("cuGetExportTable", 3000, cuGetExportTable),
    CB_FORM("cuDeviceGet", 2000, cuDeviceGet),
    CB_FORM("cuDeviceGetCount", 2000, cuDeviceGetCount),
    CB_FORM("cuDeviceGetName", 2000, cuDeviceGetName),
    CB_FORM("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2),
    CB_FORM("cuDeviceGetUuid", 9020, cuDeviceGetUuid),
    CB_FORM("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    CB_FORM("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    CB_FORM("cuDeviceComputeCapability", 2000, cuDeviceComputeCapability),
    CB_FORM("cuDeviceGetPCIBusId", 4010, cuDeviceGetPCIBusId),
    CB_FORM("cuDeviceGetByPCIBusId", 4010, cuDeviceGetByPCIBusId),
    CB_FORM("cuDeviceCanAccessPeer", 4000, cuDeviceCanAccessPeer),
    CB_FORM("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    CB_FORM("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
    CB_FORM("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2),
    CB_FORM("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState),
    CB_FORM("cuDevicePrimaryCtxSetFlags", 11000, cuDevicePrimaryCtxSetFlags_v2),
    CB_FORM("cuCtxCreate", 12050, cuCtxCreate_v4),
    CB_FORM("cuCtxCreate", 3020, cuCtxCreate_v2),
    CB_FORM("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    CB_FORM("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    CB_FORM("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    CB_FORM("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    CB_FORM("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    CB_FORM("cuCtxGetDevice", 2000, cuCtxGetDevice),
    CB_FORM("cuCtxGetFlags", 7000, cuCtxGetFlags),
    CB_FORM("cuCtxGetApiVersion", 3020, cuCtxGetApiVersion),
    CB_FORM("cuCtxSynchronize", 2000, cuCtxSynchronize),
    CB_FORM("cuCtxGetLimit", 3010, cuCtxGetLimit),
    CB_FORM("cuCtxSetLimit", 3010, cuCtxSetLimit),
    CB_FORM("cuModuleLoad", 2000, cuModuleLoad),
    CB_FORM("cuModuleLoadData", 2000, cuModuleLoadData),
    CB_FORM("cuModuleLoadDataEx", 2010, cuModuleLoadDataEx),
    CB_FORM("cuModuleLoadFatBinary", 2000, cuModuleLoadFatBinary),
    CB_FORM("cuModuleUnload", 2000, cuModuleUnload),
    CB_FORM("cuModuleGetFunction", 2000, cuModuleGetFunction),
    CB_FORM("cuModuleGetGlobal", 3020, cuModuleGetGlobal_v2),
    CB_FORM("cuLaunchKernel", 4000, cuLaunchKernel),
    CB_FORM("cuLaunchCooperativeKernel", 9000, cuLaunchCooperativeKernel),
    CB_FORM("cuFuncGetAttribute", 2020, cuFuncGetAttribute),
    CB_FORM("cuFuncSetAttribute", 9000, cuFuncSetAttribute),
    CB_FORM("cuFuncSetCacheConfig", 3000, cuFuncSetCacheConfig),
    CB_FORM("cuFuncGetName", 12030, cuFuncGetName),
    CB_FORM("cuFuncGetParamInfo", 12040, cuFuncGetParamInfo),
    CB_FORM("cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, cuOccupancyMaxActiveBlocksPerMultiprocessor),
    CB_FORM("cuOccupancyMaxPotentialBlockSize", 6050, cuOccupancyMaxPotentialBlockSize),
    CB_FORM("cuOccupancyMaxPotentialBlockSizeWithFlags", 6050, cuOccupancyMaxPotentialBlockSizeWithFlags),
    CB_FORM("cuFuncSetBlockShape", 2000, cuFuncSetBlockShape),
    CB_FORM("cuFuncSetSharedSize", 2000, cuFuncSetSharedSize),
    CB_FORM("cuParamSetSize", 2000, cuParamSetSize),
    CB_FORM("cuParamSeti", 2000, cuParamSeti),
    CB_FORM("cuParamSetf", 2000, cuParamSetf),
    CB_FORM("cuParamSetv", 2000, cuParamSetv),
    CB_FORM("cuLaunch", 2000, cuLaunch),
    CB_FORM("cuLaunchGrid", 2000, cuLaunchGrid),
    CB_FORM("cuLaunchGridAsync", 2000, cuLaunchGridAsync),
    CB_FORM("cuLinkCreate", 6050, cuLinkCreate_v2),
    CB_FORM("cuLinkAddData", 6050, cuLinkAddData_v2),
    CB_FORM("cuLinkAddFile", 6050, cuLinkAddFile_v2),
    CB_FORM("cuLinkComplete", 5050, cuLinkComplete),
    CB_FORM("cuLinkDestroy", 5050, cuLinkDestroy),
    CB_FORM("cuMemAlloc", 3020, cuMemAlloc_v2),
    CB_FORM("cuMemFree", 3020, cuMemFree_v2),
    CB_FORM("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    CB_FORM("cuMemFreeHost", 2000, cuMemFreeHost),
    CB_FORM("cuMemHostAlloc", 2020, cuMemHostAlloc),
    CB_FORM("cuMemHostRegister", 6050, cuMemHostRegister_v2),
    CB_FORM("cuMemHostUnregister", 4000, cuMemHostUnregister),
    CB_FORM("cuMemHostGetDevicePointer", 3020, cuMemHostGetDevicePointer_v2),
    CB_FORM("cuMemAllocManaged", 6000, cuMemAllocManaged),
    CB_FORM("cuMemGetInfo", 3020, cuMemGetInfo_v2),
    CB_FORM("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
    CB_FORM("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
    CB_FORM("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2),
    CB_FORM("cuMemcpy", 4000, cuMemcpy),
    CB_FORM("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2),
    CB_FORM("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2),
    CB_FORM("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2),
    CB_FORM("cuMemcpyAsync", 4000, cuMemcpyAsync),
    CB_FORM("cuMemsetD8", 3020, cuMemsetD8_v2),
    CB_FORM("cuMemsetD16", 3020, cuMemsetD16_v2),
    CB_FORM("cuMemsetD32", 3020, cuMemsetD32_v2),
    CB_FORM("cuMemsetD8Async", 3020, cuMemsetD8Async),
    CB_FORM("cuMemsetD16Async", 3020, cuMemsetD16Async),
    CB_FORM("cuMemsetD32Async", 3020, cuMemsetD32Async),
    CB_FORM("cuMemGetAddressRange", 3020, cuMemGetAddressRange_v2),
    CB_FORM("cuPointerGetAttribute", 4000, cuPointerGetAttribute),
    CB_FORM("cuArrayCreate", 3020, cuArrayCreate_v2),
    CB_FORM("cuArray3DCreate", 3020, cuArray3DCreate_v2),
    CB_FORM("cuArrayDestroy", 2000, cuArrayDestroy),
    CB_FORM("cuArrayGetDescriptor", 3020, cuArrayGetDescriptor_v2),
    CB_FORM("cuArray3DGetDescriptor", 3020, cuArray3DGetDescriptor_v2),
    CB_FORM("cuMemcpy2D", 3020, cuMemcpy2D_v2),
    CB_FORM("cuMemcpy2DUnaligned", 3020, cuMemcpy2DUnaligned_v2),
    CB_FORM("cuMemcpy2DAsync", 3020, cuMemcpy2DAsync_v2),
    CB_FORM("cuMemAllocPitch", 3020, cuMemAllocPitch_v2),
    CB_FORM("cuTexObjectCreate", 5000, cuTexObjectCreate),
    CB_FORM("cuTexObjectDestroy", 5000, cuTexObjectDestroy),
    CB_FORM("cuSurfObjectCreate", 5000, cuSurfObjectCreate),
    CB_FORM("cuSurfObjectDestroy", 5000, cuSurfObjectDestroy),
    CB_FORM("cuLibraryLoadData", 12000, cuLibraryLoadData),
    CB_FORM("cuLibraryLoadFromFile", 12000, cuLibraryLoadFromFile),
    CB_FORM("cuLibraryUnload", 12000, cuLibraryUnload),
    CB_FORM("cuLibraryGetModule", 12000, cuLibraryGetModule),
    CB_FORM("cuLibraryGetKernel", 12000, cuLibraryGetKernel),
    CB_FORM("cuLibraryGetGlobal", 12000, cuLibraryGetGlobal),
    CB_FORM("cuKernelGetFunction", 12000, cuKernelGetFunction),
    CB_FORM("cuKernelGetLibrary", 12050, cuKernelGetLibrary),
    CB_FORM("cuKernelGetAttribute", 12000, cuKernelGetAttribute),
    CB_FORM("cuKernelSetAttribute", 12000, cuKernelSetAttribute),
    CB_FORM("cuKernelGetName", 12030, cuKernelGetName),
    CB_FORM("cuKernelGetParamInfo", 12040, cuKernelGetParamInfo),
    CB_FORM("cuGraphCreate", 10000, cuGraphCreate),
    CB_FORM("cuGraphDestroy", 10000, cuGraphDestroy),
    CB_FORM("cuGraphClone", 10000, cuGraphClone),
    CB_FORM("cuGraphGetNodes", 10000, cuGraphGetNodes),
    CB_FORM("cuGraphAddEmptyNode", 10000, cuGraphAddEmptyNode),
    CB_FORM("cuGraphAddHostNode", 10000, cuGraphAddHostNode),
    CB_FORM("cuGraphAddKernelNode", 12000, cuGraphAddKernelNode_v2),
    CB_FORM("cuGraphAddDependencies", 12030, cuGraphAddDependencies_v2),
    CB_FORM("cuGraphInstantiate", 12000, cuGraphInstantiateWithFlags),
    CB_FORM("cuGraphInstantiateWithFlags", 11040, cuGraphInstantiateWithFlags),
    CB_FORM("cuGraphExecDestroy", 10000, cuGraphExecDestroy),
    CB_FORM("cuGraphLaunch", 10000, cuGraphLaunch),
    CB_FORM("cuGraphDebugDotPrint", 11030, cuGraphDebugDotPrint),
    CB_FORM("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2),
    CB_FORM("cuStreamEndCapture", 10000, cuStreamEndCapture),
    CB_FORM("cuStreamIsCapturing", 10000, cuStreamIsCapturing),
    CB_FORM("cuMemcpy3D", 3020, cuMemcpy3D_v2),
    CB_FORM("cuMemcpy3DAsync", 3020, cuMemcpy3DAsync_v2),
    CB_FORM("cuMemsetD2D8", 3020, cuMemsetD2D8_v2),
    CB_FORM("cuMemsetD2D16", 3020, cuMemsetD2D16_v2),
    CB_FORM("cuMemsetD2D32", 3020, cuMemsetD2D32_v2),
    CB_FORM("cuMemsetD2D8Async", 3020, cuMemsetD2D8Async),
    CB_FORM("cuMemsetD2D16Async", 3020, cuMemsetD2D16Async),
    CB_FORM("cuMemsetD2D32Async", 3020, cuMemsetD2D32Async),
    CB_FORM("cuMemcpyHtoA", 3020, cuMemcpyHtoA_v2),
    CB_FORM("cuMemcpyAtoH", 3020, cuMemcpyAtoH_v2),
    CB_FORM("cuMemcpyHtoAAsync", 3020, cuMemcpyHtoAAsync_v2),
    CB_FORM("cuMemcpyAtoHAsync", 3020, cuMemcpyAtoHAsync_v2),
    CB_FORM("cuMemcpyDtoA", 3020, cuMemcpyDtoA_v2),
    CB_FORM("cuMemcpyAtoD", 3020, cuMemcpyAtoD_v2),
    CB_FORM("cuMemcpyAtoA", 3020, cuMemcpyAtoA_v2),
    CB_FORM("cuMemcpyPeer", 4000, cuMemcpyPeer),
    CB_FORM("cuMemcpyPeerAsync", 4000, cuMemcpyPeerAsync),
    CB_FORM("cuPointerGetAttributes", 7000, cuPointerGetAttributes),
    CB_FORM("cuMemHostGetFlags", 2030, cuMemHostGetFlags),
    CB_FORM("cuMemPrefetchAsync", 12020, cuMemPrefetchAsync_v2),
    CB_FORM("cuMemAdvise", 12020, cuMemAdvise_v2),
    CB_FORM("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000,
            cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags),
    CB_FORM("cuCtxGetId", 12000, cuCtxGetId),
    CB_FORM("cuCtxSetFlags", 12010, cuCtxSetFlags),
    CB_FORM("cuModuleGetLoadingMode", 11070, cuModuleGetLoadingMode),
    CB_FORM("cuStreamGetId", 12000, cuStreamGetId),
    CB_FORM("cuMemAllocAsync", 11020, cuMemAllocAsync),
    CB_FORM("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync),
    CB_FORM("cuMemFreeAsync", 11020, cuMemFreeAsync),
    CB_FORM("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool),
    CB_FORM("cuDeviceGetMemPool", 11020, cuDeviceGetMemPool),
    CB_FORM("cuDeviceSetMemPool", 11020, cuDeviceSetMemPool),
    CB_FORM("cuMemPoolCreate", 11020, cuMemPoolCreate),
    CB_FORM("cuMemPoolDestroy", 11020, cuMemPoolDestroy),
    CB_FORM("cuMemPoolSetAttribute", 11020, cuMemPoolSetAttribute),
    CB_FORM("cuMemPoolGetAttribute", 11020, cuMemPoolGetAttribute),
    CB_FORM("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo),
    CB_FORM("cuLaunchKernelEx", 11060, cuLaunchKernelEx),
    CB_FORM("cuFuncGetModule", 11000, cuFuncGetModule),
    CB_FORM("cuCtxGetStreamPriorityRange", 5050, cuCtxGetStreamPriorityRange),
    CB_FORM("cuCtxResetPersistingL2Cache", 11000, cuCtxResetPersistingL2Cache),
    CB_FORM("cuCtxGetCacheConfig", 3020, cuCtxGetCacheConfig),
    CB_FORM("cuCtxSetCacheConfig", 3020, cuCtxSetCacheConfig),
    CB_FORM("cuStreamAddCallback", 5000, cuStreamAddCallback),
    CB_FORM("cuStreamAttachMemAsync", 6000, cuStreamAttachMemAsync),
    CB_FORM("cuStreamGetCtx", 9020, cuStreamGetCtx),
    CB_FORM("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags),
    CB_FORM("cuStreamCreate", 2000, cuStreamCreate),
    CB_FORM("cuStreamCreateWithPriority", 5050, cuStreamCreateWithPriority),
    CB_FORM("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    CB_FORM("cuStreamSynchronize", 2000, cuStreamSynchronize),
    CB_FORM("cuStreamQuery", 2000, cuStreamQuery),
    CB_FORM("cuStreamWaitEvent", 3020, cuStreamWaitEvent),
    CB_FORM("cuStreamGetFlags", 5050, cuStreamGetFlags),
    CB_FORM("cuStreamGetPriority", 5050, cuStreamGetPriority),
    CB_FORM("cuLaunchHostFunc", 10000, cuLaunchHostFunc),
    CB_FORM("cuEventCreate", 2000, cuEventCreate),
    CB_FORM("cuIpcGetMemHandle", 4010, cuIpcGetMemHandle),
    CB_FORM("cuIpcOpenMemHandle", 4010, cuIpcOpenMemHandle),
    CB_FORM("cuIpcOpenMemHandle", 11000, cuIpcOpenMemHandle_v2),
    CB_FORM("cuIpcCloseMemHandle", 4010, cuIpcCloseMemHandle),
    CB_FORM("cuIpcGetEventHandle", 4010, cuIpcGetEventHandle),
    CB_FORM("cuIpcOpenEventHandle", 4010, cuIpcOpenEventHandle),
    CB_FORM("cuEventDestroy", 4000, cuEventDestroy_v2),
    CB_FORM("cuEventRecord", 2000, cuEventRecord),
    CB_FORM("cuEventSynchronize", 2000, cuEventSynchronize),
    CB_FORM("cuEventQuery", 2000, cuEventQuery),
    CB_FORM("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
    CB_FORM("cuEventElapsedTime", 2000, cuEventElapsedTime),
};

#undef CB_FORM

// This library's own handle, found once: a program's runtime resolves hundreds of names.
void* this_library() {
    static void* const self = [] {
        Dl_info info{};
        if (!dladdr(reinterpret_cast<void*>(&cuGetProcAddress_v2), &info) || !info.dli_fname)
            return static_cast<void*>(nullptr);
        return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);  // kept: the library stays loaded anyway
    }();
    return self;
}

// `name` with the first of `suffixes` this library exports.
void* exported(const std::string& name, std::initializer_list<const char*> suffixes) {
    void* library = this_library();
    if (!library) return nullptr;
    for (const char* suffix : suffixes)
        if (void* found = dlsym(library, (name + suffix).c_str())) return found;
    return nullptr;
}

// A name this library exports without implementing it: its newest form.
void* exported_stub(const std::string& name) { return exported(name, {"_v4", "_v3", "_v2", ""}); }

}  // namespace

extern "C" {

// With CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, a function that takes a stream (or copies
// synchronously) comes in its per-thread default-stream form (_ptsz / _ptds), as a program built
// with --default-stream per-thread calls it.
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version, unsigned long long flags,
                             CUdriverProcAddressQueryResult* status) {
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
    *pfn = nullptr;
    bool named = false;
    const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    for (const auto& f : forms) {
        if (std::string(f.name) != symbol) continue;
        named = true;
        if (cuda_version >= f.since) {
            void* per_thread_form = per_thread ? exported(f.symbol, {"_ptsz", "_ptds"}) : nullptr;
            *pfn = per_thread_form ? per_thread_form : f.function;
            break;
        }
    }
    if (!*pfn && !named) *pfn = exported_stub(symbol);
    if (status)
        *status = *pfn    ? CU_GET_PROC_ADDRESS_SUCCESS
                  : named ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                          : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version, unsigned long long flags) {
    return cuGetProcAddress_v2(symbol, pfn, cuda_version, flags, nullptr);
}

}  // extern "C"

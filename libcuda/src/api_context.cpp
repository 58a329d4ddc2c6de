// Primary contexts, created contexts, each thread's current-context stack, and what applies to
// the current context (synchronize, limits).
#include "contexts.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"

using namespace cudabridge::libcuda;

extern "C" {

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
    if (!context) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    retain_primary(device);
    *context = primary_context(device);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    return release_primary(device) ? CUDA_SUCCESS
                                   : fail(CUDA_ERROR_INVALID_CONTEXT, "the primary context was not retained");
}

// The device's memory, modules, streams and events go, as cudaDeviceReset's do.
CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return from_runtime(e);
    return from_runtime(cudaDeviceReset());
}

CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active) {
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    *flags = primary_context(device)->flags;
    *active = primary_retains(device) > 0 ? 1 : 0;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned flags) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    if (flags & ~unsigned(CU_CTX_FLAGS_MASK)) return fail(CUDA_ERROR_INVALID_VALUE, "unknown context flags");
    primary_context(device)->flags = flags;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext* context, unsigned flags, CUdevice device) {
    if (!context) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    if (flags & ~unsigned(CU_CTX_FLAGS_MASK)) return fail(CUDA_ERROR_INVALID_VALUE, "unknown context flags");
    *context = create_context(device, flags);
    push_current(*context);
    return CUDA_SUCCESS;
}

// CUDA 13's cuCtxCreate. Its parameters (CUctxCreateParams: execution-affinity settings, a CIG
// graphics context) ask for a partition of the GPU or a graphics interop a simulated GPU has none
// of; without them (a zeroed struct, or none) the context is an ordinary one.
CUresult cuCtxCreate_v4(CUcontext* context, CUctxCreateParams* params, unsigned flags, CUdevice device) {
    if (params && ((params->execAffinityParams && params->numExecAffinityParams > 0) || params->cigParams))
        return not_supported("cuCtxCreate with execution-affinity or CIG parameters");
    return cuCtxCreate_v2(context, flags, device);
}

CUresult cuCtxDestroy_v2(CUcontext context) {
    if (!context) return CUDA_ERROR_INVALID_VALUE;
    if (context->primary) return fail(CUDA_ERROR_INVALID_CONTEXT, "a primary context is released, not destroyed");
    if (!live(context)) return fail(CUDA_ERROR_INVALID_CONTEXT, "no such context");
    (void)cudaSetDevice(context->device);
    (void)cudaDeviceSynchronize();  // its work completes first, as CUDA's destroy waits
    return destroy_context(context) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuCtxGetCurrent(CUcontext* context) {
    if (!context) return CUDA_ERROR_INVALID_VALUE;
    if (!initialized()) return fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    *context = current_context();
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
    if (!initialized()) return fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    if (context && !live(context)) return fail(CUDA_ERROR_INVALID_CONTEXT, "no such context");
    set_current(context);
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext context) {
    if (!initialized()) return fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    if (!live(context)) return fail(CUDA_ERROR_INVALID_CONTEXT, "no such context");
    push_current(context);
    return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext* context) {
    if (!initialized()) return fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    CUcontext popped = pop_current();
    if (!popped) return fail(CUDA_ERROR_INVALID_CONTEXT, "no context is current on this thread");
    if (context) *context = popped;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    return enter_current(device);
}

CUresult cuCtxGetFlags(unsigned* flags) {
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    *flags = current_context()->flags;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetApiVersion(CUcontext context, unsigned* version) {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    if (context && !live(context)) return fail(CUDA_ERROR_INVALID_CONTEXT, "no such context");
    *version = 13000;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceSynchronize());
}

// CUlimit and cudaLimit share their numbers.
CUresult cuCtxGetLimit(size_t* value, int limit) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceGetLimit(value, limit));
}

CUresult cuCtxSetLimit(int limit, size_t value) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceSetLimit(limit, value));
}

CUresult cuCtxGetStreamPriorityRange(int* least, int* greatest) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceGetStreamPriorityRange(least, greatest));
}

// The simulator has no cache: persisting lines and the L1/shared split are accepted, and change
// nothing (as the runtime's cudaCtxResetPersistingL2Cache and cache configurations).
CUresult cuCtxResetPersistingL2Cache(void) { return enter_current(); }

CUresult cuCtxGetCacheConfig(int* config) {
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    *config = 0;  // CU_FUNC_CACHE_PREFER_NONE
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCacheConfig(int config) {
    if (config < 0 || config > 3) return fail(CUDA_ERROR_INVALID_VALUE, "cuCtxSetCacheConfig: no such configuration");
    return enter_current();
}

// A context's unique id: its handle's address, unique while it lives (CUDA's ids are never
// reused; a created context here is freed and its address may be).
CUresult cuCtxGetId(CUcontext context, unsigned long long* id) {
    if (!id) return CUDA_ERROR_INVALID_VALUE;
    if (!context) context = current_context();
    if (!live(context)) return fail(CUDA_ERROR_INVALID_CONTEXT, "cuCtxGetId: no such context");
    *id = reinterpret_cast<uintptr_t>(context);
    return CUDA_SUCCESS;
}

CUresult cuCtxSetFlags(unsigned flags) {
    if (flags & ~unsigned(CU_CTX_FLAGS_MASK)) return fail(CUDA_ERROR_INVALID_VALUE, "unknown context flags");
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    current_context()->flags = flags;
    return CUDA_SUCCESS;
}

}  // extern "C"

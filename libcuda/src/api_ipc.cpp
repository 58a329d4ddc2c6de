// Sharing device memory and events with other processes (cuIpc*), on the runtime's cudaIpc*:
// the handles are the same 64 bytes.
#include "contexts.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"

#include <cstring>

using namespace cudabridge::libcuda;

namespace {

void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

}  // namespace

extern "C" {

CUresult cuIpcGetMemHandle(CUipcMemHandle* handle, CUdeviceptr dptr) {
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaIpcMemHandle_t h{};
    if (cudaError_t r = cudaIpcGetMemHandle(&h, as_pointer(dptr)); r != cudaSuccess) return from_runtime(r);
    std::memcpy(handle->reserved, h.reserved, sizeof h.reserved);
    return CUDA_SUCCESS;
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr* dptr, CUipcMemHandle handle, unsigned flags) {
    if (!dptr) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaIpcMemHandle_t h{};
    std::memcpy(h.reserved, handle.reserved, sizeof h.reserved);
    void* p = nullptr;
    if (cudaError_t r = cudaIpcOpenMemHandle(&p, h, flags); r != cudaSuccess) return from_runtime(r);
    *dptr = reinterpret_cast<uintptr_t>(p);
    return CUDA_SUCCESS;
}

CUresult cuIpcOpenMemHandle(CUdeviceptr* dptr, CUipcMemHandle handle, unsigned flags) {
    return cuIpcOpenMemHandle_v2(dptr, handle, flags);
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaIpcCloseMemHandle(as_pointer(dptr)));
}

CUresult cuIpcGetEventHandle(CUipcEventHandle* handle, CUevent event) {
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaIpcEventHandle_t h{};
    if (cudaError_t r = cudaIpcGetEventHandle(&h, reinterpret_cast<cudaEvent_t>(event)); r != cudaSuccess)
        return from_runtime(r);
    std::memcpy(handle->reserved, h.reserved, sizeof h.reserved);
    return CUDA_SUCCESS;
}

CUresult cuIpcOpenEventHandle(CUevent* event, CUipcEventHandle handle) {
    if (!event) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaIpcEventHandle_t h{};
    std::memcpy(h.reserved, handle.reserved, sizeof h.reserved);
    cudaEvent_t e = nullptr;
    if (cudaError_t r = cudaIpcOpenEventHandle(&e, h); r != cudaSuccess) return from_runtime(r);
    *event = reinterpret_cast<CUevent>(e);
    return CUDA_SUCCESS;
}

}  // extern "C"

// Sharing device memory and events with other processes (cudaIpc*), on the runtime's cbIpc*.
#include "errors.hpp"
#include "handles.hpp"
#include "run_summary.hpp"

#include <cstring>

using namespace cudabridge::cudart;

extern "C" {

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t* handle, void* devPtr) {
    if (!handle) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbIpcMemHandle_t h{};
    if (cbError_t e = cbIpcGetMemHandle(&h, devPtr); e != cbSuccess) return record(e);
    std::memcpy(handle->reserved, h.reserved, sizeof h.reserved);
    return cudaSuccess;
}

cudaError_t cudaIpcOpenMemHandle(void** devPtr, cudaIpcMemHandle_t handle, unsigned flags) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbIpcMemHandle_t h{};
    std::memcpy(h.reserved, handle.reserved, sizeof h.reserved);
    return record(cbIpcOpenMemHandle(devPtr, h, flags));
}

cudaError_t cudaIpcCloseMemHandle(void* devPtr) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbIpcCloseMemHandle(devPtr));
}

cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t* handle, cudaEvent_t event) {
    if (!handle) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbIpcEventHandle_t h{};
    if (cbError_t e = cbIpcGetEventHandle(&h, cb_event(event)); e != cbSuccess) return record(e);
    std::memcpy(handle->reserved, h.reserved, sizeof h.reserved);
    return cudaSuccess;
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t* event, cudaIpcEventHandle_t handle) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbIpcEventHandle_t h{};
    std::memcpy(h.reserved, handle.reserved, sizeof h.reserved);
    return record(cbIpcOpenEventHandle(reinterpret_cast<cbEvent_t*>(event), h));
}

}  // extern "C"

// The CUDA runtime entry points of the runtime objects this library is built from (cudart/):
// the driver API's functions are adapters over them, so that both APIs share one device model.
#pragma once

#include "cuda_types.hpp"

#include <cstddef>

extern "C" {
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceGetAttribute(int* value, int attribute, int device);
cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device);
cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id);
cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceGetLimit(size_t* value, int limit);
cudaError_t cudaDeviceSetLimit(int limit, size_t value);

cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned flags);
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned flags);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned flags);
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned flags);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned* flags);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, void (*fn)(void*), void* data);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
}

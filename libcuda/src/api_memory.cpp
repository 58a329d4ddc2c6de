// Memory: device, pinned, mapped and managed allocations, copies and fills, and what a pointer is.
// CUdeviceptr is the device address the runtime's allocations have.
#include "allocation_ranges.hpp"
#include "element_fill.hpp"
#include "contexts.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"
#include "versioned_api.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace cudabridge::libcuda;

namespace {

void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }
cudaStream_t as_stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaMemLocation runtime_location(CUmemLocation l) { return {static_cast<cudaMemLocationType>(l.type), l.id}; }

CUresult copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaMemcpy(dst, src, bytes, kind));
}

CUresult copy_async(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaMemcpyAsync(dst, src, bytes, kind, as_stream(stream)));
}

// An 8-, 16- or 32-bit fill of `count` elements (cudart's fill_elements); the synchronous form
// waits for the legacy stream.
template <typename T>
CUresult fill(CUdeviceptr dst, T value, size_t count, CUstream stream, bool async) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    if (dst % sizeof(T)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemsetD16/D32: the address is not aligned");
    const cudaError_t e = cudabridge::cudart::fill_elements(as_pointer(dst), 0, value, sizeof(T), count, 1,
                                                            async ? as_stream(stream) : nullptr);
    if (e != cudaSuccess || async) return from_runtime(e);
    return from_runtime(cudaStreamSynchronize(nullptr));
}

}  // namespace

extern "C" {

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
    if (!ptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    void* p = nullptr;
    if (cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) return from_runtime(e);
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    if (ptr == 0) return CUDA_SUCCESS;
    uintptr_t base = 0;
    size_t bytes = 0;
    if (!cudabridge::cudart::allocation_range(as_pointer(ptr), base, bytes) || base != ptr)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemFree: not the start of an allocation");
    return from_runtime(cudaFree(as_pointer(ptr)));
}

CUresult cuMemAllocHost_v2(void** ptr, size_t bytes) {
    if (!ptr) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaMallocHost(ptr, bytes));
}

CUresult cuMemFreeHost(void* ptr) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaFreeHost(ptr));
}

// CU_MEMHOSTALLOC_* and cudaHostAlloc* share their bits.
CUresult cuMemHostAlloc(void** ptr, size_t bytes, unsigned flags) {
    if (!ptr) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaHostAlloc(ptr, bytes, flags));
}

CUresult cuMemHostRegister_v2(void* ptr, size_t bytes, unsigned flags) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaHostRegister(ptr, bytes, flags));
}

CUresult cuMemHostUnregister(void* ptr) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaHostUnregister(ptr));
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* device_ptr, void* host_ptr, unsigned flags) {
    if (!device_ptr) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    void* p = nullptr;
    if (cudaError_t e = cudaHostGetDevicePointer(&p, host_ptr, flags); e != cudaSuccess) return from_runtime(e);
    *device_ptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

CUresult cuMemAllocManaged(CUdeviceptr* ptr, size_t bytes, unsigned flags) {
    if (!ptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    void* p = nullptr;
    if (cudaError_t e = cudaMallocManaged(&p, bytes, flags); e != cudaSuccess) return from_runtime(e);
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaMemGetInfo(free_bytes, total_bytes));
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
    return copy(as_pointer(dst), src, bytes, cudaMemcpyHostToDevice);
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
    return copy(dst, as_pointer(src), bytes, cudaMemcpyDeviceToHost);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    return copy(as_pointer(dst), as_pointer(src), bytes, cudaMemcpyDeviceToDevice);
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    return copy(as_pointer(dst), as_pointer(src), bytes, cudaMemcpyDefault);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
    return copy_async(as_pointer(dst), src, bytes, cudaMemcpyHostToDevice, stream);
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
    return copy_async(dst, as_pointer(src), bytes, cudaMemcpyDeviceToHost, stream);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
    return copy_async(as_pointer(dst), as_pointer(src), bytes, cudaMemcpyDeviceToDevice, stream);
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
    return copy_async(as_pointer(dst), as_pointer(src), bytes, cudaMemcpyDefault, stream);
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count) {
    return fill<unsigned char>(dst, value, count, nullptr, false);
}
CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short value, size_t count) {
    return fill<unsigned short>(dst, value, count, nullptr, false);
}
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value, size_t count) {
    return fill<unsigned>(dst, value, count, nullptr, false);
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream) {
    return fill<unsigned char>(dst, value, count, stream, true);
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count, CUstream stream) {
    return fill<unsigned short>(dst, value, count, stream, true);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, CUstream stream) {
    return fill<unsigned>(dst, value, count, stream, true);
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* bytes, CUdeviceptr ptr) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    uintptr_t start = 0;
    size_t size = 0;
    if (!cudabridge::cudart::allocation_range(as_pointer(ptr), start, size))
        return fail(CUDA_ERROR_NOT_FOUND, "cuMemGetAddressRange: no allocation holds the address");
    if (base) *base = start;
    if (bytes) *bytes = size;
    return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void* data, int attribute, CUdeviceptr ptr) {
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaPointerAttributes a{};
    if (cudaError_t e = cudaPointerGetAttributes(&a, as_pointer(ptr)); e != cudaSuccess) return from_runtime(e);
    if (a.type == cudaMemoryTypeUnregistered)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuPointerGetAttribute: memory CUDA did not allocate or register");
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *static_cast<CUcontext*>(data) = primary_context(a.device);
        break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *static_cast<unsigned*>(data) = a.type == cudaMemoryTypeHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *static_cast<CUdeviceptr*>(data) = reinterpret_cast<CUdeviceptr>(a.devicePointer);
        break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        *static_cast<void**>(data) = a.hostPointer;
        break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *static_cast<int*>(data) = a.type == cudaMemoryTypeManaged;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *static_cast<int*>(data) = a.device;
        break;
    default:
        return fail(CUDA_ERROR_INVALID_VALUE, "cuPointerGetAttribute: attribute not offered");
    }
    return CUDA_SUCCESS;
}

// Several attributes at once; one this library does not offer leaves its slot as it was, as
// CUDA leaves the ones that do not apply.
CUresult cuPointerGetAttributes(unsigned count, int* attributes, void** data, CUdeviceptr ptr) {
    if (!attributes || !data) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < count; ++i) {
        const CUresult r = cuPointerGetAttribute(data[i], attributes[i], ptr);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE) return r;
    }
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned* flags, void* ptr) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaHostGetFlags(flags, ptr));
}

// CUmemLocation and cudaMemLocation are one layout, the advice numbers the runtime's.
CUresult cuMemPrefetchAsync_v2(CUdeviceptr ptr, size_t bytes, CUmemLocation location, unsigned flags, CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudabridge::cudart::prefetch(as_pointer(ptr), bytes, runtime_location(location), flags,
                                                     reinterpret_cast<cudaStream_t>(stream)));
}

CUresult cuMemAdvise_v2(CUdeviceptr ptr, size_t bytes, int advice, CUmemLocation location) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudabridge::cudart::advise(as_pointer(ptr), bytes, advice, runtime_location(location)));
}

}  // extern "C"

// Stream-ordered allocation from memory pools: a CUmemoryPool is the runtime's cudaMemPool_t,
// and CUmemPoolProps, the pool attributes and their numbers are the runtime's too.
#include "contexts.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"

using namespace cudabridge::libcuda;

namespace {
cudaStream_t as_stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaMemPool_t as_pool(CUmemoryPool p) { return reinterpret_cast<cudaMemPool_t>(p); }
void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }
}  // namespace

extern "C" {

CUresult cuMemAllocAsync(CUdeviceptr* ptr, size_t bytes, CUstream stream) {
    if (!ptr) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    void* p = nullptr;
    if (cudaError_t e = cudaMallocAsync(&p, bytes, as_stream(stream)); e != cudaSuccess) return from_runtime(e);
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr* ptr, size_t bytes, CUmemoryPool pool, CUstream stream) {
    if (!ptr) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    void* p = nullptr;
    if (cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, as_pool(pool), as_stream(stream)); e != cudaSuccess)
        return from_runtime(e);
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaFreeAsync(as_pointer(ptr), as_stream(stream)));
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice device) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceGetDefaultMemPool(reinterpret_cast<cudaMemPool_t*>(pool), device));
}

CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice device) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceGetMemPool(reinterpret_cast<cudaMemPool_t*>(pool), device));
}

CUresult cuDeviceSetMemPool(CUdevice device, CUmemoryPool pool) {
    if (CUresult r = check_device(device); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDeviceSetMemPool(device, as_pool(pool)));
}

CUresult cuMemPoolCreate(CUmemoryPool* pool, const void* props) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(
        cudaMemPoolCreate(reinterpret_cast<cudaMemPool_t*>(pool), static_cast<const cudaMemPoolProps*>(props)));
}

CUresult cuMemPoolDestroy(CUmemoryPool pool) { return from_runtime(cudaMemPoolDestroy(as_pool(pool))); }

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void* value) {
    return from_runtime(cudaMemPoolSetAttribute(as_pool(pool), attribute, value));
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attribute, void* value) {
    return from_runtime(cudaMemPoolGetAttribute(as_pool(pool), attribute, value));
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) {
    return from_runtime(cudaMemPoolTrimTo(as_pool(pool), keep));
}

}  // extern "C"

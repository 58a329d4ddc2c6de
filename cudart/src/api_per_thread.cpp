// The entry points a program built with --default-stream per-thread (or with
// CUDA_API_PER_THREAD_DEFAULT_STREAM defined) calls instead of the plain ones: cuda_runtime_api.h
// renames them _ptds (synchronous calls) and _ptsz (calls that take a stream). Each is the plain
// call with NULL meaning the calling thread's default stream; a synchronous one queues there and
// waits for that stream, so it orders only with the thread's own work.
#include "handles.hpp"

using namespace cudabridge::cudart;

extern "C" {

cudaError_t cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpy2DAsync(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpyToSymbolAsync(const void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpyFromSymbolAsync(void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void*, size_t, unsigned);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamQuery(cudaStream_t);
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned);
cudaError_t cudaStreamAddCallback(cudaStream_t, cudaStreamCallback_t, void*, unsigned);
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t, void*);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t, cudaStream_t, unsigned);
cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t cudaMallocAsync(void**, size_t, cudaStream_t);
cudaError_t cudaFreeAsync(void*, cudaStream_t);

}  // extern "C"

namespace {

const cudaStream_t own = reinterpret_cast<cudaStream_t>(stream_per_thread);

// A synchronous call on the thread's default stream: queued there, then waited for.
cudaError_t then_wait(cudaError_t queued) {
    if (queued != cudaSuccess) return queued;
    return cudaStreamSynchronize(own);
}

}  // namespace

extern "C" {

// ---- _ptds: synchronous ------------------------------------------------------------------------

cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    return then_wait(cudaMemcpyAsync(dst, src, count, kind, own));
}
cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind) {
    return then_wait(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, own));
}
cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count, size_t offset,
                                    cudaMemcpyKind kind) {
    return then_wait(cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, own));
}
cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind) {
    return then_wait(cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, own));
}
cudaError_t cudaMemset_ptds(void* ptr, int value, size_t count) {
    return then_wait(cudaMemsetAsync(ptr, value, count, own));
}

// ---- _ptsz: NULL is the thread's default stream ------------------------------------------------

cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t s) {
    return cudaMemcpyAsync(dst, src, count, kind, per_thread_if_null(s));
}
cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, cudaMemcpyKind kind, cudaStream_t s) {
    return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, per_thread_if_null(s));
}
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count, size_t offset,
                                         cudaMemcpyKind kind, cudaStream_t s) {
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, per_thread_if_null(s));
}
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count, size_t offset,
                                           cudaMemcpyKind kind, cudaStream_t s) {
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, per_thread_if_null(s));
}
cudaError_t cudaMemsetAsync_ptsz(void* ptr, int value, size_t count, cudaStream_t s) {
    return cudaMemsetAsync(ptr, value, count, per_thread_if_null(s));
}
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return cudaStreamSynchronize(per_thread_if_null(s)); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return cudaStreamQuery(per_thread_if_null(s)); }
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t event, unsigned flags) {
    return cudaStreamWaitEvent(per_thread_if_null(s), event, flags);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t callback, void* user, unsigned flags) {
    return cudaStreamAddCallback(per_thread_if_null(s), callback, user, flags);
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void* user) {
    return cudaLaunchHostFunc(per_thread_if_null(s), fn, user);
}
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t s) {
    return cudaEventRecord(event, per_thread_if_null(s));
}
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t s, unsigned flags) {
    return cudaEventRecordWithFlags(event, per_thread_if_null(s), flags);
}
cudaError_t cudaLaunchKernel_ptsz(const void* function, dim3 grid, dim3 block, void** args, size_t shared_memory,
                                  cudaStream_t s) {
    return cudaLaunchKernel(function, grid, block, args, shared_memory, per_thread_if_null(s));
}
cudaError_t cudaMallocAsync_ptsz(void** ptr, size_t size, cudaStream_t s) {
    return cudaMallocAsync(ptr, size, per_thread_if_null(s));
}
cudaError_t cudaFreeAsync_ptsz(void* ptr, cudaStream_t s) { return cudaFreeAsync(ptr, per_thread_if_null(s)); }
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t s, void* ptr, size_t length, unsigned flags) {
    return cudaStreamAttachMemAsync(per_thread_if_null(s), ptr, length, flags);
}

}  // extern "C"

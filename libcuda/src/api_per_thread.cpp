// The per-thread default-stream forms of the driver API, which a program built with
// `--default-stream per-thread` (CU_API_PER_THREAD_DEFAULT_STREAM) calls: _ptsz takes a stream
// whose NULL is the calling thread's own default stream, _ptds is a synchronous call ordered on
// that stream. Each is its plain form with NULL read as CU_STREAM_PER_THREAD.
#include "driver_types.hpp"

namespace {

CUstream per_thread_if_null(CUstream s) { return s ? s : CU_STREAM_PER_THREAD; }

// A synchronous call on the per-thread stream: its async form, then that stream drained.
CUresult then_synchronize(CUresult queued) {
    return queued == CUDA_SUCCESS ? cuStreamSynchronize(CU_STREAM_PER_THREAD) : queued;
}

}  // namespace

extern "C" {

CUresult cuStreamQuery_ptsz(CUstream s) { return cuStreamQuery(per_thread_if_null(s)); }
CUresult cuStreamSynchronize_ptsz(CUstream s) { return cuStreamSynchronize(per_thread_if_null(s)); }
CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned flags) {
    return cuStreamWaitEvent(per_thread_if_null(s), e, flags);
}
CUresult cuStreamGetFlags_ptsz(CUstream s, unsigned* flags) { return cuStreamGetFlags(per_thread_if_null(s), flags); }
CUresult cuStreamGetPriority_ptsz(CUstream s, int* priority) {
    return cuStreamGetPriority(per_thread_if_null(s), priority);
}
CUresult cuStreamGetCtx_ptsz(CUstream s, CUcontext* context) { return cuStreamGetCtx(per_thread_if_null(s), context); }
CUresult cuStreamAddCallback_ptsz(CUstream s, void (*callback)(CUstream, CUresult, void*), void* data, unsigned flags) {
    return cuStreamAddCallback(per_thread_if_null(s), callback, data, flags);
}
CUresult cuStreamAttachMemAsync_ptsz(CUstream s, CUdeviceptr ptr, size_t length, unsigned flags) {
    return cuStreamAttachMemAsync(per_thread_if_null(s), ptr, length, flags);
}
CUresult cuLaunchHostFunc_ptsz(CUstream s, void (*fn)(void*), void* data) {
    return cuLaunchHostFunc(per_thread_if_null(s), fn, data);
}
CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { return cuEventRecord(e, per_thread_if_null(s)); }
CUresult cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned flags) {
    return cuEventRecordWithFlags(e, per_thread_if_null(s), flags);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned shared, CUstream s, void** params, void** extra) {
    return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, per_thread_if_null(s), params, extra);
}
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shared, CUstream s, void** params) {
    return cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shared, per_thread_if_null(s), params);
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    CUlaunchConfig c = *config;
    c.hStream = per_thread_if_null(c.hStream);
    return cuLaunchKernelEx(&c, f, params, extra);
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr* ptr, size_t bytes, CUstream s) {
    return cuMemAllocAsync(ptr, bytes, per_thread_if_null(s));
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* ptr, size_t bytes, CUmemoryPool pool, CUstream s) {
    return cuMemAllocFromPoolAsync(ptr, bytes, pool, per_thread_if_null(s));
}
CUresult cuMemFreeAsync_ptsz(CUdeviceptr ptr, CUstream s) { return cuMemFreeAsync(ptr, per_thread_if_null(s)); }

CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
    return cuMemcpyAsync(dst, src, bytes, per_thread_if_null(s));
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void* src, size_t bytes, CUstream s) {
    return cuMemcpyHtoDAsync_v2(dst, src, bytes, per_thread_if_null(s));
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dst, CUdeviceptr src, size_t bytes, CUstream s) {
    return cuMemcpyDtoHAsync_v2(dst, src, bytes, per_thread_if_null(s));
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
    return cuMemcpyDtoDAsync_v2(dst, src, bytes, per_thread_if_null(s));
}
CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D* copy, CUstream s) {
    return cuMemcpy2DAsync_v2(copy, per_thread_if_null(s));
}
CUresult cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char value, size_t count, CUstream s) {
    return cuMemsetD8Async(dst, value, count, per_thread_if_null(s));
}
CUresult cuMemsetD16Async_ptsz(CUdeviceptr dst, unsigned short value, size_t count, CUstream s) {
    return cuMemsetD16Async(dst, value, count, per_thread_if_null(s));
}
CUresult cuMemsetD32Async_ptsz(CUdeviceptr dst, unsigned value, size_t count, CUstream s) {
    return cuMemsetD32Async(dst, value, count, per_thread_if_null(s));
}

CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    return then_synchronize(cuMemcpyAsync(dst, src, bytes, CU_STREAM_PER_THREAD));
}
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void* src, size_t bytes) {
    return then_synchronize(cuMemcpyHtoDAsync_v2(dst, src, bytes, CU_STREAM_PER_THREAD));
}
CUresult cuMemcpyDtoH_v2_ptds(void* dst, CUdeviceptr src, size_t bytes) {
    return then_synchronize(cuMemcpyDtoHAsync_v2(dst, src, bytes, CU_STREAM_PER_THREAD));
}
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    return then_synchronize(cuMemcpyDtoDAsync_v2(dst, src, bytes, CU_STREAM_PER_THREAD));
}
CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D* copy) {
    return then_synchronize(cuMemcpy2DAsync_v2(copy, CU_STREAM_PER_THREAD));
}
CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D* copy) { return cuMemcpy2D_v2_ptds(copy); }
CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char value, size_t count) {
    return then_synchronize(cuMemsetD8Async(dst, value, count, CU_STREAM_PER_THREAD));
}
CUresult cuMemsetD16_v2_ptds(CUdeviceptr dst, unsigned short value, size_t count) {
    return then_synchronize(cuMemsetD16Async(dst, value, count, CU_STREAM_PER_THREAD));
}
CUresult cuMemsetD32_v2_ptds(CUdeviceptr dst, unsigned value, size_t count) {
    return then_synchronize(cuMemsetD32Async(dst, value, count, CU_STREAM_PER_THREAD));
}

}  // extern "C"

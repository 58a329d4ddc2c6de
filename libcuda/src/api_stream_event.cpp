// Streams and events: a CUstream is the runtime's cudaStream_t, a CUevent its cudaEvent_t, so
// either API's handles work in the other's calls.
#include "contexts.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"

using namespace cudabridge::libcuda;

namespace {
cudaStream_t as_stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t as_event(CUevent e) { return reinterpret_cast<cudaEvent_t>(e); }
}  // namespace

extern "C" {

CUresult cuStreamCreateWithPriority(CUstream* stream, unsigned flags, int priority) {
    if (!stream) return CUDA_ERROR_INVALID_VALUE;
    if (flags & ~unsigned(CU_STREAM_NON_BLOCKING)) return fail(CUDA_ERROR_INVALID_VALUE, "unknown stream flags");
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaStream_t s = nullptr;
    if (cudaError_t e = cudaStreamCreateWithPriority(&s, flags, priority); e != cudaSuccess) return from_runtime(e);
    *stream = reinterpret_cast<CUstream>(s);
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned flags) { return cuStreamCreateWithPriority(stream, flags, 0); }

CUresult cuStreamDestroy_v2(CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamDestroy(as_stream(stream)));
}

CUresult cuStreamSynchronize(CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamSynchronize(as_stream(stream)));
}

CUresult cuStreamQuery(CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamQuery(as_stream(stream)));
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamWaitEvent(as_stream(stream), as_event(event), flags));
}

CUresult cuStreamGetFlags(CUstream stream, unsigned* flags) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamGetFlags(as_stream(stream), flags));
}

CUresult cuStreamGetPriority(CUstream stream, int* priority) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamGetPriority(as_stream(stream), priority));
}

CUresult cuLaunchHostFunc(CUstream stream, void (*fn)(void*), void* data) {
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaLaunchHostFunc(as_stream(stream), fn, data));
}

// CU_EVENT_* and cudaEvent* share their bits.
CUresult cuEventCreate(CUevent* event, unsigned flags) {
    if (!event) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaEvent_t e = nullptr;
    if (cudaError_t r = cudaEventCreateWithFlags(&e, flags); r != cudaSuccess) return from_runtime(r);
    *event = reinterpret_cast<CUevent>(e);
    return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaEventDestroy(as_event(event)));
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaEventRecord(as_event(event), as_stream(stream)));
}

CUresult cuEventSynchronize(CUevent event) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaEventSynchronize(as_event(event)));
}

CUresult cuEventQuery(CUevent event) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaEventQuery(as_event(event)));
}

CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaEventElapsedTime(ms, as_event(start), as_event(end)));
}

CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) { return cuEventElapsedTime_v2(ms, start, end); }

// The callback gets the stream's status as the driver's result; CU_STREAM and cudaStream share
// the handle.
CUresult cuStreamAddCallback(CUstream stream, void (*callback)(CUstream, CUresult, void*), void* data, unsigned flags) {
    if (!callback) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    struct call {
        void (*callback)(CUstream, CUresult, void*);
        void* data;
    };
    auto* c = new call{callback, data};
    const cudaError_t e = cudaStreamAddCallback(
        as_stream(stream),
        [](cudaStream_t s, cudaError_t status, void* p) {
            auto* pending = static_cast<call*>(p);
            pending->callback(reinterpret_cast<CUstream>(s), to_driver(status), pending->data);
            delete pending;
        },
        c, flags);
    if (e != cudaSuccess) delete c;
    return from_runtime(e);
}

CUresult cuStreamAttachMemAsync(CUstream stream, CUdeviceptr ptr, size_t length, unsigned flags) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamAttachMemAsync(as_stream(stream),
                                                 reinterpret_cast<void*>(static_cast<uintptr_t>(ptr)), length, flags));
}

// The stream's context: the primary context of the device it was made on.
CUresult cuStreamGetCtx(CUstream stream, CUcontext* context) {
    if (!context) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    int device = 0;
    if (cudaError_t e = cudaStreamGetDevice(as_stream(stream), &device); e != cudaSuccess) return from_runtime(e);
    *context = primary_context(device);
    return CUDA_SUCCESS;
}

CUresult cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned flags) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaEventRecordWithFlags(as_event(event), as_stream(stream), flags));
}

CUresult cuStreamGetId(CUstream stream, unsigned long long* id) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamGetId(as_stream(stream), id));
}
CUresult cuStreamGetId_ptsz(CUstream stream, unsigned long long* id) {
    return cuStreamGetId(stream ? stream : CU_STREAM_PER_THREAD, id);
}

}  // extern "C"

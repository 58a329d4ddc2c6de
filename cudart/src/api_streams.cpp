// Streams, events and host callbacks, on the runtime's own streams and events.
#include "errors.hpp"
#include "handles.hpp"
#include "run_summary.hpp"

#include <memory>
#include <thread>

using namespace cudabridge::cudart;

namespace {

// cudaStreamAddCallback / cudaLaunchHostFunc: the host function runs once the work queued before
// it is done. The runtime has no host-function queue, so this waits for the stream on a thread of
// its own; later work on the stream is not held back behind the callback (CUDA would hold it).
struct host_call {
    cbStream_t stream;
    cudaStream_t cuda_stream;
    cudaStreamCallback_t callback = nullptr;
    cudaHostFn_t function = nullptr;
    void* user = nullptr;
};

cudaError_t enqueue_host_call(std::unique_ptr<host_call> call) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbEvent_t done = nullptr;
    if (cbError_t e = cbEventCreate(&done); e != cbSuccess) return record(e);
    if (cbError_t e = cbEventRecord(done, call->stream); e != cbSuccess) {
        cbEventDestroy(done);
        return record(e);
    }
    std::thread([call = std::move(call), done] {
        const cudaError_t status = to_cuda(cbEventSynchronize(done));
        cbEventDestroy(done);
        if (call->callback) call->callback(call->cuda_stream, status, call->user);
        if (call->function) call->function(call->user);
    }).detach();
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
    if (!stream) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbStreamCreateWithFlags(reinterpret_cast<cbStream_t*>(stream), flags));
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int /*priority*/) {
    return cudaStreamCreateWithFlags(stream, flags);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbStreamDestroy(cb_stream(stream)));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbStreamSynchronize(cb_stream(stream)); e != cbSuccess) return record(e);
    settle_timings(false);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    const cbError_t e = cbStreamQuery(cb_stream(stream));
    return e == cbErrorNotReady ? cudaErrorNotReady : record(e);  // not ready is an answer, not an error
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbStreamWaitEvent(cb_stream(stream), cb_event(event), flags));
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user, unsigned flags) {
    if (!callback || flags != 0) return record(cudaErrorInvalidValue);
    auto call = std::make_unique<host_call>(host_call{cb_stream(stream), stream, callback, nullptr, user});
    return enqueue_host_call(std::move(call));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void* user) {
    if (!function) return record(cudaErrorInvalidValue);
    auto call = std::make_unique<host_call>(host_call{cb_stream(stream), stream, nullptr, function, user});
    return enqueue_host_call(std::move(call));
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
    if (!event) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbEventCreate(reinterpret_cast<cbEvent_t*>(event)));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned /*flags*/) { return cudaEventCreate(event); }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbEventRecord(cb_event(event), cb_stream(stream)));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned /*flags*/) {
    return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbEventSynchronize(cb_event(event)); e != cbSuccess) return record(e);
    settle_timings(false);
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    const cbError_t e = cbEventQuery(cb_event(event));
    return e == cbErrorNotReady ? cudaErrorNotReady : record(e);
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbEventElapsedTime(ms, cb_event(start), cb_event(end)));
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbEventDestroy(cb_event(event)));
}

}  // extern "C"

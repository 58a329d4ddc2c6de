// Streams, events and host callbacks, on the runtime's own streams and events.
#include "errors.hpp"
#include "handles.hpp"
#include "host_functions.hpp"
#include "managed_variables.hpp"
#include "run_summary.hpp"
#include "stream_capture.hpp"

#include <functional>

using namespace cudabridge::cudart;

namespace {

// cudaStreamAddCallback / cudaLaunchHostFunc: after the host functions queued before it on the
// stream (host_functions.hpp), and once the work before it is done.
cudaError_t enqueue_host_call(cudaStream_t stream, std::function<void(cudaError_t)> call) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    const cbStream_t s = ordered(stream);
    cbEvent_t done = nullptr;
    if (cbError_t e = cbEventCreate(&done); e != cbSuccess) return record(e);
    if (cbError_t e = cbEventRecord(done, s); e != cbSuccess) {
        cbEventDestroy(done);
        return record(e);
    }
    start_host_function(s, done, [call = std::move(call)](cbError_t status) { call(to_cuda(status)); });
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
    if (!stream) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbStreamCreateWithFlags(reinterpret_cast<cbStream_t*>(stream), flags); e != cbSuccess)
        return record(e);
    if (flags) remember_stream_flags(*stream, flags);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (reinterpret_cast<uintptr_t>(stream) == stream_per_thread) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    forget_stream_attributes(stream);
    return record(cbStreamDestroy(ordered(stream)));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (cudaError_t result = cudaSuccess; refused_while_capturing(stream, "cudaStreamSynchronize", result))
        return result;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbStreamSynchronize(ordered(stream)); e != cbSuccess) return record(e);
    settle_timings(false);
    return managed_variables_synchronized(false);
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    if (cudaError_t result = cudaSuccess; refused_while_capturing(stream, "cudaStreamQuery", result)) return result;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (host_functions_pending(cb_stream(stream))) return cudaErrorNotReady;
    const cbError_t e = cbStreamQuery(cb_stream(stream));
    if (e == cbSuccess) return managed_variables_synchronized(false);  // done: the host may look
    return e == cbErrorNotReady ? cudaErrorNotReady : record(e);       // not ready is an answer, not an error
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
    if (cudaError_t result = cudaSuccess; captured_stream_wait(stream, event, result)) return result;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbStreamWaitEvent(ordered(stream), cb_event(event), flags));
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user, unsigned flags) {
    if (!callback || flags != 0) return record(cudaErrorInvalidValue);
    if (cudaError_t result = cudaSuccess; refused_while_capturing(stream, "cudaStreamAddCallback", result))
        return result;
    return enqueue_host_call(stream, [=](cudaError_t status) { callback(stream, status, user); });
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void* user) {
    if (!function) return record(cudaErrorInvalidValue);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeHost;
    node->host = {function, user};
    if (cudaError_t result = cudaSuccess; captured(stream, std::move(node), result)) return result;
    return enqueue_host_call(stream, [=](cudaError_t) { function(user); });
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
    if (!event) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbEventCreate(reinterpret_cast<cbEvent_t*>(event)));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
    if (!event) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbEventCreateWithFlags(reinterpret_cast<cbEvent_t*>(event), flags));
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (cudaError_t result = cudaSuccess; captured_event_record(event, stream, result)) return result;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbEventRecord(cb_event(event), ordered(stream)));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned /*flags*/) {
    return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbEventSynchronize(cb_event(event)); e != cbSuccess) return record(e);
    settle_timings(false);
    return managed_variables_synchronized(false);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    const cbError_t e = cbEventQuery(cb_event(event));
    if (e == cbSuccess) return managed_variables_synchronized(false);
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

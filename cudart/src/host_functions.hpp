// Host functions queued on streams (cudaLaunchHostFunc, cudaStreamAddCallback), ordered as CUDA
// orders them: a host function runs once the work queued before it is done, and work queued on
// its stream after it waits until it has returned. The runtime has no host-function queue of its
// own, so the wait happens on the host: the call that queues later work on such a stream blocks
// until the stream's host functions have returned. The legacy default stream orders with every
// stream, both ways, as CUDA's does.
#pragma once

#include "handles.hpp"

#include <functional>

namespace cudabridge::cudart {

// Blocks until every host function that work on `stream` must follow has returned. Returns at
// once when called from inside a host function (CUDA forbids API calls there; this never hangs).
void wait_for_host_functions(cbStream_t stream);
// True when a host function that work on `stream` must follow has not returned yet.
bool host_functions_pending(cbStream_t stream);
// Runs `fn` on a thread of its own once `done` (recorded on `stream`) is reached, passing the
// stream's status; the caller hands over `done`, which is destroyed after the wait.
void start_host_function(cbStream_t stream, cbEvent_t done, std::function<void(cbError_t)> fn);

// A stream handle for queuing work: first waits for the host functions it must follow.
inline cbStream_t ordered(cudaStream_t s) {
    wait_for_host_functions(cb_stream(s));
    return cb_stream(s);
}

}  // namespace cudabridge::cudart

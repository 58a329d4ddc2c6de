// The per-thread default stream (cudaStreamPerThread, and NULL in a program built with
// --default-stream per-thread): one stream for each host thread and device, created on first
// use. Like CUDA's it orders only the work its thread queues there, and it synchronizes with the
// legacy default stream.
#pragma once

#include <cudabridge.h>

namespace cudabridge::cudart {

// The calling thread's stream on the current device; NULL (the legacy default stream, which
// orders more strictly but never wrongly) when the runtime cannot create one.
cbStream_t per_thread_default_stream();
// cudaDeviceReset destroyed every stream: each thread creates its stream again on next use.
void forget_per_thread_streams();

}  // namespace cudabridge::cudart

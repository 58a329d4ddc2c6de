// CUDA's handles are the runtime's own: a cudaStream_t is a cbStream_t, a cudaEvent_t a
// cbEvent_t. Of CUDA's two special stream values, cudaStreamLegacy is the legacy default stream
// (as NULL is) and cudaStreamPerThread the calling thread's own (per_thread_stream.hpp).
#pragma once

#include "cuda_types.hpp"
#include "per_thread_stream.hpp"

#include <cudabridge.h>

#include <cstdint>

namespace cudabridge::cudart {

inline constexpr uintptr_t stream_legacy = 0x1, stream_per_thread = 0x2;

inline cbStream_t cb_stream(cudaStream_t s) {
    const auto v = reinterpret_cast<uintptr_t>(s);
    if (v == stream_per_thread) return per_thread_default_stream();
    return v == stream_legacy ? nullptr : reinterpret_cast<cbStream_t>(s);
}
// What NULL means in a program built with --default-stream per-thread (the _ptsz entry points).
inline cudaStream_t per_thread_if_null(cudaStream_t s) {
    return s ? s : reinterpret_cast<cudaStream_t>(stream_per_thread);
}
inline cbEvent_t cb_event(cudaEvent_t e) { return reinterpret_cast<cbEvent_t>(e); }

// A stream's flags, priority and attributes (stream_attributes.cpp): kept from its creation,
// forgotten when it is destroyed.
void remember_stream_flags(cudaStream_t stream, unsigned flags);
void forget_stream_attributes(cudaStream_t stream);

}  // namespace cudabridge::cudart

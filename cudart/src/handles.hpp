// CUDA's handles are the runtime's own: a cudaStream_t is a cbStream_t, a cudaEvent_t a
// cbEvent_t. CUDA's two special stream values both mean the legacy default stream here (this
// library has no per-thread default stream; a program built with --default-stream per-thread
// still runs, with the legacy stream's stricter ordering).
#pragma once

#include "cuda_types.hpp"

#include <cudabridge.h>

#include <cstdint>

namespace cudabridge::cudart {

inline cbStream_t cb_stream(cudaStream_t s) {
    const auto v = reinterpret_cast<uintptr_t>(s);
    return v == 0x1 || v == 0x2 ? nullptr : reinterpret_cast<cbStream_t>(s);
}
inline cbEvent_t cb_event(cudaEvent_t e) { return reinterpret_cast<cbEvent_t>(e); }

}  // namespace cudabridge::cudart

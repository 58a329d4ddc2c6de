// CUDA's error semantics over the CudaBridge runtime's: results become CUDA's own enum values,
// each thread keeps its last error (cudaGetLastError resets it, cudaPeekAtLastError does not),
// and an error that leaves the device unusable stays sticky, as the runtime underneath keeps it.
#pragma once

#include "cuda_types.hpp"

#include <cudabridge.h>

namespace cudabridge::cudart {

// The CUDA value of a CudaBridge result (the common ones share their values; the eGPU's own,
// such as a lost link, map to the nearest CUDA meaning).
cudaError_t to_cuda(cbError_t e);

// Records `e` as the thread's last error (unless it is cudaSuccess) and returns it.
cudaError_t record(cudaError_t e);
// The same for a runtime result (with CUDABRIDGE_CUDART_VERBOSE set, the runtime's message is
// printed too).
cudaError_t record(cbError_t e);
// Records `e` and returns it; the message is printed when CUDABRIDGE_CUDART_VERBOSE is set.
cudaError_t fail(cudaError_t e, const char* message);

// cudaDeviceReset succeeded: the sticky error and this thread's last error are gone.
void clear_errors_after_reset();

cudaError_t take_last_error();
cudaError_t peek_last_error();

// For a function this library does not implement: logs its name once per process (stderr) and
// returns cudaErrorNotSupported.
cudaError_t not_supported(const char* function);

const char* error_name(cudaError_t e);
const char* error_string(cudaError_t e);

}  // namespace cudabridge::cudart

// Errors as CUDA reports them (errors.hpp has the semantics).
#include "errors.hpp"

using namespace cudabridge::cudart;

extern "C" {

cudaError_t cudaGetLastError(void) { return take_last_error(); }
cudaError_t cudaPeekAtLastError(void) { return peek_last_error(); }
const char* cudaGetErrorName(cudaError_t error) { return error_name(error); }
const char* cudaGetErrorString(cudaError_t error) { return error_string(error); }

}  // extern "C"

// NVIDIA's own NVRTC, found by path (never by name: under `run` the name finds this library) and
// loaded once: $CUDABRIDGE_NVRTC when set and trusted, else the toolkit the build found, else
// /usr/local/cuda/lib64. Its functions by the names of nvrtc.h.
#pragma once

#include <string>

namespace cudabridge::nvrtc {

using result = int;  // nvrtcResult: 0 is NVRTC_SUCCESS
using program = struct _nvrtcProgram*;

inline constexpr result success = 0;
inline constexpr result invalid_input = 3;
inline constexpr result internal_error = 11;

struct toolkit_functions {
    const char* (*error_string)(result);
    result (*version)(int*, int*);
    result (*num_supported_archs)(int*);
    result (*supported_archs)(int*);
    result (*create_program)(program*, const char*, const char*, int, const char* const*, const char* const*);
    result (*destroy_program)(program*);
    result (*compile_program)(program, int, const char* const*);
    result (*ptx_size)(program, size_t*);
    result (*ptx)(program, char*);
    result (*cubin_size)(program, size_t*);
    result (*cubin)(program, char*);
    result (*ltoir_size)(program, size_t*);
    result (*ltoir)(program, char*);
    result (*optixir_size)(program, size_t*);
    result (*optixir)(program, char*);
    result (*log_size)(program, size_t*);
    result (*log)(program, char*);
    result (*add_name_expression)(program, const char*);
    result (*lowered_name)(program, const char*, const char**);
    result (*pch_heap_size)(size_t*);
    result (*set_pch_heap_size)(size_t);
    result (*pch_create_status)(program);
    result (*pch_heap_size_required)(program, size_t*);
    result (*set_flow_callback)(program, int (*)(void*, void*), void*);
};

// nullptr when no toolkit NVRTC could be loaded; why() then says why (also said once on stderr).
const toolkit_functions* toolkit();
const std::string& why();

}  // namespace cudabridge::nvrtc

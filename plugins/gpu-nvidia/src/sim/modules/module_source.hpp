// The PTX text a module image holds, for the simulated GPU, by format:
//   CB_MODULE_PTX          the text itself (trailing NULs dropped; a NUL inside is refused)
//   CB_MODULE_FATBIN       the PTX entry for the newest architecture (fatbin.hpp)
//   CB_MODULE_CUDA_SOURCE  compiled by NVRTC to PTX for the device's compute capability; NVRTC
//                          is dlopened when a CUDA toolkit is present ($CUDABRIDGE_NVRTC names
//                          the library), else CB_ERR_UNSUPPORTED "no NVRTC on this machine"
//   CB_MODULE_CUBIN        refused: machine code for a real GPU; build with PTX
#pragma once

#include <cudabridge/gpu.h>

#include <cstddef>
#include <string>

namespace cudabridge::nv {

class nvrtc_library;

struct module_text {
    std::string ptx;
    std::string log;  // the compiler's log for CUDA source (warnings too); empty otherwise
};

cb_status module_ptx(const void* image, size_t size, cb_module_format format, int cc_major, int cc_minor,
                     module_text& out, std::string& error);

// CUDA source through `nvrtc`, to PTX for compute capability cc_major.cc_minor (module_ptx uses
// the process's NVRTC, loaded at the first CUDA source module).
cb_status compile_cuda_source(const nvrtc_library& nvrtc, const void* image, size_t size, int cc_major, int cc_minor,
                              module_text& out, std::string& error);

}  // namespace cudabridge::nv

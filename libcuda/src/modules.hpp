// Modules the driver API loads (PTX text, a fatbin, or what the GPU family accepts, such as a
// cubin on a real GPU) and the kernels looked up in them. A module belongs to the device of the
// context it was loaded in; a function is a kernel's name in its module.
#pragma once

#include "driver_types.hpp"

#include <cudabridge.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct CUfunc_st {
    CUmodule module = nullptr;
    std::string name;
    int max_dynamic_shared = 0;  // cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES), read back
    // What the launch API before CUDA 4 sets on the function itself (cuFuncSetBlockShape,
    // cuFuncSetSharedSize, cuParamSet*) for cuLaunch / cuLaunchGrid.
    unsigned block[3] = {1, 1, 1};
    unsigned shared = 0;
    std::vector<char> params;
};

struct CUmod_st {
    cbModule_t module = nullptr;
    CUdevice device = 0;
    std::mutex mutex;
    std::map<std::string, std::unique_ptr<CUfunc_st>> functions;
};

namespace cudabridge::libcuda {

// What an image handed to cuModuleLoadData is, and its size: a fatbin (bare, or behind nvcc's
// wrapper), an ELF cubin, or NUL-terminated PTX text.
struct module_image {
    const void* bytes = nullptr;
    size_t size = 0;
    cb_module_format format = CB_MODULE_PTX;
};
module_image identify_image(const void* image);

// Loads `image` on the current context's device. On failure the family's reason (the PTX line
// and instruction it refused) goes to `log` and, once per failure, to stderr.
CUresult load_module(const module_image& image, CUmodule& out, std::string& log);

bool live(CUmodule module);
bool live(CUfunction function);
CUresult unload_module(CUmodule module);

}  // namespace cudabridge::libcuda

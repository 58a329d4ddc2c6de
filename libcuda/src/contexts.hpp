// Contexts as the driver API has them: one primary context per device (retained and released by
// count; the CUDA runtime's too), contexts a program creates, and each thread's stack of current
// contexts. Every context is one device of the CudaBridge runtime; making one current makes its
// device the runtime's current device for the calls that follow.
#pragma once

#include "driver_types.hpp"

struct CUctx_st {
    int device = 0;
    unsigned flags = 0;
    bool primary = false;
};

namespace cudabridge::libcuda {

// cuInit was called, or the program's CUDA runtime calls brought the runtime up (CUDA's runtime
// initializes the driver).
bool initialized();
void mark_initialized();
// CUDA_ERROR_NOT_INITIALIZED before cuInit, else CUDA_ERROR_INVALID_DEVICE for a bad ordinal.
CUresult check_device(CUdevice device);

CUcontext primary_context(CUdevice device);
// Primary contexts retained and not yet released, by device.
int primary_retains(CUdevice device);
void retain_primary(CUdevice device);
bool release_primary(CUdevice device);  // false when it was not retained

CUcontext create_context(CUdevice device, unsigned flags);
bool destroy_context(CUcontext context);  // false for no live context
bool live(CUcontext context);

// The calling thread's current context: the top of its stack, or, with an empty stack, the
// primary context of the runtime's current device, as a program that mixes in CUDA runtime calls
// finds it (the runtime makes it current); nullptr before initialization. NVIDIA's driver
// answers CUDA_ERROR_INVALID_CONTEXT there when the runtime has not run on the thread.
CUcontext current_context();
void set_current(CUcontext context);  // replaces the top (or pushes onto an empty stack)
void push_current(CUcontext context);
CUcontext pop_current();  // nullptr with an empty stack

// For every call that works in the current context: CUDA_ERROR_NOT_INITIALIZED,
// CUDA_ERROR_INVALID_CONTEXT when no live context is current; else its device becomes the
// runtime's current device and *device (if given) receives it.
CUresult enter_current(CUdevice* device = nullptr);

}  // namespace cudabridge::libcuda

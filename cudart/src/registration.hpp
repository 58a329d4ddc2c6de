// What a CUDA program's generated host code registers at startup, before main: its fatbins (one
// per translation unit), the kernels in each by their host-side stub, and its __device__ and
// __constant__ variables. A fatbin becomes a module on a device only when one of its kernels is
// first launched there (CUDA's lazy loading): a program that never touches the GPU never
// connects the eGPU.
#pragma once

#include "cuda_types.hpp"

#include <cudabridge.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cudabridge::cudart {

struct fatbin_record {
    const void* image = nullptr;  // the fatbin itself (magic 0xBA55ED50)
    size_t size = 0;
    std::vector<unsigned char> joined;  // a -rdc program's prelinked fatbins, which `image` then is
    std::mutex mutex;
    std::map<int, cbModule_t> modules;   // by device ordinal, once loaded
    std::vector<int> ptx_architectures;  // of its PTX entries: 75 for compute_75
    bool refusal_told = false;           // why its module cannot load was printed (once)

    // The PTX a device of compute capability major.minor runs: the newest not beyond it (0: none).
    int ptx_architecture_for(int major, int minor) const {
        int best = 0;
        for (int a : ptx_architectures)
            if (a <= major * 10 + minor && a > best) best = a;
        return best;
    }
};

struct kernel_record {
    fatbin_record* fatbin = nullptr;
    std::string name;                     // the kernel's symbol in the PTX (mangled for C++ kernels)
    const void* host_function = nullptr;  // its host stub, the runtime API's name for it
};

// Launches a registered kernel: the <<<...>>> path, cudaLaunchKernel and graph replays
// (api_launch.cpp). On a capturing stream the launch becomes a graph node. A cooperative launch
// (cudaLaunchCooperativeKernel) may have no more blocks than the device holds at once.
cudaError_t launch_registered(kernel_record* k, dim3 grid, dim3 block, void** args, size_t shared_memory,
                              cudaStream_t stream, bool cooperative = false);

struct variable_record {
    fatbin_record* fatbin = nullptr;
    std::string name;
    size_t size = 0;
    bool constant = false;
};

class registrations {
public:
    // Null when `wrapper` is not an nvcc fatbin wrapper.
    fatbin_record* add_fatbin(const void* wrapper);
    void remove_fatbin(fatbin_record* f);
    void add_kernel(fatbin_record* f, const void* host_function, const char* device_name);
    void add_variable(fatbin_record* f, const void* host_variable, const char* device_name, size_t size, bool constant);

    // Null when the host function was never registered.
    kernel_record* kernel(const void* host_function);
    const variable_record* variable(const void* host_variable);

    // The module of `f` on the current device, loaded on first use.
    cudaError_t module_on_current_device(fatbin_record& f, cbModule_t& out);
    // cudaDeviceReset freed every module of the current device.
    void forget_modules_of(int device);

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<fatbin_record>> fatbins_;
    std::map<const void*, std::unique_ptr<kernel_record>> kernels_;
    std::map<const void*, variable_record> variables_;
};

registrations& registered();

// A fatbin's size from its header; 0 when `image` is no fatbin (magic 0xBA55ED50).
size_t fatbin_size(const void* image);

// The <<<...>>> configuration nvcc's launch code pushes and its stub pops, per thread.
struct call_configuration {
    dim3 grid{1, 1, 1};
    dim3 block{1, 1, 1};
    size_t shared_memory = 0;
    cudaStream_t stream = nullptr;
};
void push_configuration(const call_configuration& c);
bool pop_configuration(call_configuration& out);

}  // namespace cudabridge::cudart

// Just enough of CUDA C++ for the built-in kernels (plugins/gpu-nvidia/src/nvidia_driver/cuda_kernels) to
// compile as host C++: the qualifiers vanish, __shared__ becomes a static shared by the block's
// threads (blocks run one after another), and the built-in indices are per-thread globals the
// emulated libcuda sets before calling a kernel. Test-only: it lets the real-GPU test suite run
// its comparisons with no GPU.
#pragma once

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __launch_bounds__(...)

struct cb_emulated_dim3 {
    unsigned x = 1, y = 1, z = 1;
};

extern thread_local cb_emulated_dim3 threadIdx;
extern thread_local cb_emulated_dim3 blockIdx;
extern thread_local cb_emulated_dim3 blockDim;
extern thread_local cb_emulated_dim3 gridDim;

// Waits for every thread of the block (a std::barrier when the block runs several threads).
void __syncthreads();

// The built-in kernels' source, compiled as host C++ under cuda_emulation.hpp for the emulated
// libcuda: the very code nvcc puts in the fatbin, so the emulated runs check it too.
#include "cuda_emulation.hpp"

#include "nvidia_driver/cuda_kernels/builtin_kernels.cu"

// CB_NV_HD marks the per-element semantics that both the CPU engine and the CUDA kernels compile:
// one description of each kernel, so the two cannot drift apart.
#pragma once

#if defined(__CUDACC__)
#define CB_NV_HD __host__ __device__
#else
#define CB_NV_HD
#endif

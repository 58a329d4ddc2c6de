// The corpus kernels' algorithms written as plain C++ for this machine: built -O3 -march=native
// (reference_kernels.cpp alone), run on the same engine threads as the PTX engine's blocks. Each
// rounds as its kernel does (an fma where the kernel's PTX has fma.rn, the same order of
// additions), so results compare bit for bit.
#pragma once

#include "common/kernels/engine.hpp"

#include <cstdint>

namespace cudabridge::bench {

using nv::kernels::engine;

// y = a * x + y
void saxpy(int n, float a, const float* x, float* y, engine& e);
// Per block of 256: the kernel's shared-memory tree, partial[b] its sum.
void reduce_blocks(int n, const float* in, float* partial, engine& e);
// Per block of 256: an inclusive prefix sum of its elements; block_totals[b] its last one.
void scan_blocks(int n, const int* in, int* out, int* block_totals, engine& e);
// 256 bins of bytes; bins must be zero.
void histogram256(int n, const unsigned char* data, unsigned* bins, engine& e);
// A 5-point stencil of width x height; the border copied.
void stencil5(int width, int height, float center, float side, const float* in, float* out, engine& e);
// C = alpha * A * B + beta * C in the kernel's 16 x 16 tiles and summation order.
void sgemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C, engine& e);

}  // namespace cudabridge::bench

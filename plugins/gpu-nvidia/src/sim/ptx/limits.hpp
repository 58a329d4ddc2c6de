// What a GPU allows a PTX module, and the engine's own bounds where neither the PTX ISA nor a GPU
// sets one. Every count the parser and the layout accept is bounded here, so a malformed module is
// refused with the limit it broke instead of growing the process without end.
#pragma once

#include "sim/ptx/ast.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace cudabridge::nv::ptx::limits {

// The engine's bounds (PTX registers are virtual; nvcc's largest kernels declare a few thousand).
inline constexpr int64_t registers_per_declaration = 65536;  // %r<N>
inline constexpr int64_t registers_per_function = 262144;
inline constexpr uint64_t array_elements = uint64_t{1} << 32;  // [N], all dimensions together
inline constexpr uint64_t alignment = 4096;                    // .align N
inline constexpr size_t instructions_per_function = size_t{1} << 22;
inline constexpr size_t nesting_depth = 256;                          // { } blocks in a body
inline constexpr uint64_t global_variable_bytes = uint64_t{1} << 30;  // a module's .global variables

// What GPUs allow (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability";
// kernel parameters: CUDA 12.1 release notes).
inline constexpr uint64_t shared_bytes_per_block = 232448;  // 227 KiB, the most any GPU gives a block
inline constexpr uint64_t local_bytes_per_thread = 512 * 1024;
inline constexpr uint64_t constant_bytes = 64 * 1024;
inline constexpr uint64_t kernel_parameter_bytes = 32764;

// The newest PTX ISA this engine reads (CUDA 13.0's nvcc writes 9.0).
inline constexpr int newest_isa_major = 9;

// Empty when the module keeps every limit above and names a real PTX version and GPU target;
// otherwise "line N: ..." naming what broke which limit.
std::string check(const module& m);

}  // namespace cudabridge::nv::ptx::limits

// Calls of a .func whose code parks a thread (a barrier, a warp-wide or tensor-core instruction)
// are inlined into the kernel that makes them, before the layout: the engine parks a kernel's own
// threads, and a called function's frame is not kept across a park. nvcc inlines such functions
// itself unless they are __noinline__ or the program is built with -rdc, where a function with
// external linkage stays a call (NVIDIA's cdpSimplePrint: __syncthreads() in print_info).
//
// The callee's body takes the call's place with its registers, .local and .param variables and
// labels renamed for that call site; its parameters become the call's argument buffers and its
// return parameters the call's; `ret` jumps past the inlined body. Recursive functions and
// indirect calls stay as they are (the layout refuses them where they park).
#pragma once

#include "sim/ptx/ast.hpp"

namespace cudabridge::nv::ptx {

// Inlines, into every kernel, each direct call of a .func that parks (transitively). Returns how
// many calls it inlined.
size_t inline_parking_calls(module& m);

}  // namespace cudabridge::nv::ptx

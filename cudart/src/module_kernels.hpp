// Kernels a program names by module and name rather than by a registered host stub: what the
// driver API (CudaBridge's libcuda, cuLaunchKernel) launches. They go through the runtime's own
// launch path, so run's summary counts them and a capturing stream captures them as kernel nodes
// a graph replays.
#pragma once

#include "graph.hpp"

#include <cudabridge.h>

#include <string>

namespace cudabridge::cudart {

// The launch's arguments copied by the kernel's parameter sizes, as a graph's kernel node keeps
// them (module and name set, `kernel` null).
cudaError_t copy_module_kernel_arguments(cbModule_t module, const std::string& name, void** params, kernel_work& out);

// Queues the launch on `stream` (after the host functions it must follow), counted in run's
// summary; cooperative: every block resident at once (the caller checked the grid fits).
cudaError_t launch_module_kernel(cbModule_t module, const std::string& name, dim3 grid, dim3 block, void** params,
                                 size_t shared_memory, cudaStream_t stream, bool cooperative);

// When `stream` is capturing: the launch becomes a kernel node, `result` says how that went, and
// true is returned. A cooperative launch cannot be captured (cudaErrorStreamCaptureUnsupported).
bool captured_module_launch(cbModule_t module, const std::string& name, dim3 grid, dim3 block, void** params,
                            unsigned shared_memory, cudaStream_t stream, bool cooperative, cudaError_t& result);

// A kernel node of a module's kernel (cuGraphAddKernelNode).
cudaError_t add_module_kernel_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, cbModule_t module, const std::string& name, dim3 grid, dim3 block,
                                   unsigned shared_memory, void** params);

}  // namespace cudabridge::cudart

// The entry points whose ABI differs between CUDA 12 and CUDA 13: implemented once here, exported
// by api_cuda13.cpp (libcudart.so.13) and api_cuda12.cpp (libcudart.so.12) in each one's form.
#pragma once

#include "cuda_types.hpp"
#include "graph_types.hpp"

namespace cudabridge::cudart {

// CUDA 13's cudaGetDeviceProperties (CUDA 13's cudaDeviceProp).
cudaError_t get_properties(cudaDeviceProp* prop, int device);
// CUDA 13's cudaMemPrefetchAsync and cudaMemAdvise (a cudaMemLocation).
cudaError_t prefetch(const void* ptr, size_t count, cudaMemLocation location, unsigned flags, cudaStream_t stream);
cudaError_t advise(const void* ptr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location);

// The graph and capture calls that gained edge data (cudaGraphEdgeData) in CUDA 13: CUDA 12's
// plain forms have none, its _v2 forms (12.3) have it. `edges` may be null.
cudaError_t add_dependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                             const cudaGraphEdgeData* edges, size_t count);
cudaError_t remove_dependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                const cudaGraphEdgeData* edges, size_t count);
cudaError_t graph_edges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to, cudaGraphEdgeData* edges,
                        size_t* count);
cudaError_t node_dependencies(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges, size_t* count);
cudaError_t node_dependents(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges, size_t* count);
// cudaGraphAddNode: CUDA 12.3's has no edge data (its _v2 has), CUDA 13's has.
cudaError_t add_node_from_params(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                 const cudaGraphEdgeData* edges, size_t count, cudaGraphNodeParams* params);
cudaError_t capture_info(cudaStream_t stream, int* status, unsigned long long* id, cudaGraph_t* graph,
                         const cudaGraphNode_t** dependencies, const cudaGraphEdgeData** edges, size_t* count);
cudaError_t update_capture_dependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                        const cudaGraphEdgeData* edges, size_t count, unsigned flags);

}  // namespace cudabridge::cudart

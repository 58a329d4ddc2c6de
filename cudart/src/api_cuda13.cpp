// libcudart.so.13's forms of the entry points whose ABI changed in CUDA 13 (versioned_api.hpp).
#include "handles.hpp"
#include "versioned_api.hpp"

using namespace cudabridge::cudart;

extern "C" {

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) { return get_properties(prop, device); }

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, cudaMemLocation location, unsigned flags,
                                 cudaStream_t stream) {
    return prefetch(ptr, count, location, flags, stream);
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void* ptr, size_t count, cudaMemLocation location, unsigned flags,
                                      cudaStream_t s) {
    return prefetch(ptr, count, location, flags, per_thread_if_null(s));
}

cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location) {
    return advise(ptr, count, advice, location);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                     const cudaGraphEdgeData* edges, size_t count) {
    return add_dependencies(graph, from, to, edges, count);
}
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edges, size_t count) {
    return remove_dependencies(graph, from, to, edges, count);
}
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to, cudaGraphEdgeData* edges,
                              size_t* count) {
    return graph_edges(graph, from, to, edges, count);
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges,
                                         size_t* count) {
    return node_dependencies(node, out, edges, count);
}
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges,
                                           size_t* count) {
    return node_dependents(node, out, edges, count);
}
cudaError_t cudaGraphAddNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                             const cudaGraphEdgeData* edges, size_t count, cudaGraphNodeParams* params) {
    return add_node_from_params(out, graph, dependencies, edges, count, params);
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, int* status, unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** dependencies, const cudaGraphEdgeData** edges,
                                     size_t* count) {
    return capture_info(stream, status, id, graph, dependencies, edges, count);
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t s, int* status, unsigned long long* id, cudaGraph_t* graph,
                                          const cudaGraphNode_t** dependencies, const cudaGraphEdgeData** edges,
                                          size_t* count) {
    return capture_info(per_thread_if_null(s), status, id, graph, dependencies, edges, count);
}
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const cudaGraphEdgeData* edges, size_t count, unsigned flags) {
    return update_capture_dependencies(stream, dependencies, edges, count, flags);
}
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t s, cudaGraphNode_t* dependencies,
                                                     const cudaGraphEdgeData* edges, size_t count, unsigned flags) {
    return update_capture_dependencies(per_thread_if_null(s), dependencies, edges, count, flags);
}

}  // extern "C"

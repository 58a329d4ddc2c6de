// The graph's nodes of every kind but kernels, their parameters, edges and executable updates
// through the driver API: each an adapter over the runtime's call. A copy's parameters are
// translated (copy_3d_params.hpp); the other structs share the runtime's layout
// (CUDA_MEMSET_NODE_PARAMS but for its CUdeviceptr, CUDA_HOST_NODE_PARAMS,
// CUDA_MEM_ALLOC_NODE_PARAMS, CUgraphEdgeData, CUgraphExecUpdateResultInfo,
// CUDA_GRAPH_INSTANTIATE_PARAMS), and node types and update results share its numbers. A node's
// CUcontext is ignored: a device has one context's memory.
#include "contexts.hpp"
#include "copy_3d_params.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"

using namespace cudabridge::libcuda;

namespace {

cudaMemsetParams runtime_fill(const CUDA_MEMSET_NODE_PARAMS& f) {
    return {reinterpret_cast<void*>(static_cast<uintptr_t>(f.dst)), f.pitch, f.value, f.elementSize, f.width, f.height};
}

CUDA_MEMSET_NODE_PARAMS driver_fill(const cudaMemsetParams& f) {
    return {reinterpret_cast<uintptr_t>(f.dst), f.pitch, f.value, f.elementSize, f.width, f.height};
}

cudaEvent_t as_event(CUevent e) { return reinterpret_cast<cudaEvent_t>(e); }

// Calls `use` with the runtime's form of `copy`; a mipmap level is not offered (`refused` says so).
template <typename F>
CUresult with_runtime_copy(const CUDA_MEMCPY3D* copy, const char* refused, F&& use) {
    if (!copy) return CUDA_ERROR_INVALID_VALUE;
    const std::optional<cudaMemcpy3DParms> p = runtime_copy(*copy);
    if (!p) return not_supported(refused);
    return from_runtime(use(*p));
}

}  // namespace

extern "C" {

// ---- copies and fills ---------------------------------------------------------------------------

CUresult cuGraphAddMemcpyNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                              const CUDA_MEMCPY3D* copy, CUcontext) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return with_runtime_copy(copy, "cuGraphAddMemcpyNode of a mipmap level", [&](const cudaMemcpy3DParms& p) {
        return cudaGraphAddMemcpyNode(node, graph, dependencies, count, &p);
    });
}
CUresult cuGraphMemcpyNodeGetParams(CUgraphNode node, CUDA_MEMCPY3D* copy) {
    if (!copy) return CUDA_ERROR_INVALID_VALUE;
    cudaMemcpy3DParms p{};
    const cudaError_t e = cudaGraphMemcpyNodeGetParams(node, &p);
    if (e == cudaSuccess) *copy = driver_copy(p);
    return from_runtime(e);
}
CUresult cuGraphMemcpyNodeSetParams(CUgraphNode node, const CUDA_MEMCPY3D* copy) {
    return with_runtime_copy(copy, "cuGraphMemcpyNodeSetParams of a mipmap level",
                             [&](const cudaMemcpy3DParms& p) { return cudaGraphMemcpyNodeSetParams(node, &p); });
}
CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec exec, CUgraphNode node, const CUDA_MEMCPY3D* copy, CUcontext) {
    return with_runtime_copy(copy, "cuGraphExecMemcpyNodeSetParams of a mipmap level", [&](const cudaMemcpy3DParms& p) {
        return cudaGraphExecMemcpyNodeSetParams(exec, node, &p);
    });
}

CUresult cuGraphAddMemsetNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                              const CUDA_MEMSET_NODE_PARAMS* fill, CUcontext) {
    if (!fill) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    const cudaMemsetParams p = runtime_fill(*fill);
    return from_runtime(cudaGraphAddMemsetNode(node, graph, dependencies, count, &p));
}
CUresult cuGraphMemsetNodeGetParams(CUgraphNode node, CUDA_MEMSET_NODE_PARAMS* fill) {
    if (!fill) return CUDA_ERROR_INVALID_VALUE;
    cudaMemsetParams p{};
    const cudaError_t e = cudaGraphMemsetNodeGetParams(node, &p);
    if (e == cudaSuccess) *fill = driver_fill(p);
    return from_runtime(e);
}
CUresult cuGraphMemsetNodeSetParams(CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS* fill) {
    if (!fill) return CUDA_ERROR_INVALID_VALUE;
    const cudaMemsetParams p = runtime_fill(*fill);
    return from_runtime(cudaGraphMemsetNodeSetParams(node, &p));
}
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec exec, CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS* fill,
                                        CUcontext) {
    if (!fill) return CUDA_ERROR_INVALID_VALUE;
    const cudaMemsetParams p = runtime_fill(*fill);
    return from_runtime(cudaGraphExecMemsetNodeSetParams(exec, node, &p));
}

// ---- host functions, child graphs, events, stream-ordered memory ----------------------------------

CUresult cuGraphHostNodeGetParams(CUgraphNode node, void* params) {
    return from_runtime(cudaGraphHostNodeGetParams(node, static_cast<cudaHostNodeParams*>(params)));
}
CUresult cuGraphHostNodeSetParams(CUgraphNode node, const void* params) {
    return from_runtime(cudaGraphHostNodeSetParams(node, static_cast<const cudaHostNodeParams*>(params)));
}
CUresult cuGraphExecHostNodeSetParams(CUgraphExec exec, CUgraphNode node, const void* params) {
    return from_runtime(cudaGraphExecHostNodeSetParams(exec, node, static_cast<const cudaHostNodeParams*>(params)));
}

CUresult cuGraphAddChildGraphNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                  CUgraph child) {
    return from_runtime(cudaGraphAddChildGraphNode(node, graph, dependencies, count, child));
}
CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode node, CUgraph* child) {
    return from_runtime(cudaGraphChildGraphNodeGetGraph(node, child));
}
CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec exec, CUgraphNode node, CUgraph child) {
    return from_runtime(cudaGraphExecChildGraphNodeSetParams(exec, node, child));
}

CUresult cuGraphAddEventRecordNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                   CUevent event) {
    return from_runtime(cudaGraphAddEventRecordNode(node, graph, dependencies, count, as_event(event)));
}
CUresult cuGraphAddEventWaitNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                 CUevent event) {
    return from_runtime(cudaGraphAddEventWaitNode(node, graph, dependencies, count, as_event(event)));
}
CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode node, CUevent* event) {
    return from_runtime(cudaGraphEventRecordNodeGetEvent(node, reinterpret_cast<cudaEvent_t*>(event)));
}
CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode node, CUevent event) {
    return from_runtime(cudaGraphEventRecordNodeSetEvent(node, as_event(event)));
}
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode node, CUevent* event) {
    return from_runtime(cudaGraphEventWaitNodeGetEvent(node, reinterpret_cast<cudaEvent_t*>(event)));
}
CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode node, CUevent event) {
    return from_runtime(cudaGraphEventWaitNodeSetEvent(node, as_event(event)));
}
CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec exec, CUgraphNode node, CUevent event) {
    return from_runtime(cudaGraphExecEventRecordNodeSetEvent(exec, node, as_event(event)));
}
CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec exec, CUgraphNode node, CUevent event) {
    return from_runtime(cudaGraphExecEventWaitNodeSetEvent(exec, node, as_event(event)));
}

CUresult cuGraphAddMemAllocNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                void* params) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(
        cudaGraphAddMemAllocNode(node, graph, dependencies, count, static_cast<cudaMemAllocNodeParams*>(params)));
}
CUresult cuGraphMemAllocNodeGetParams(CUgraphNode node, void* params) {
    return from_runtime(cudaGraphMemAllocNodeGetParams(node, static_cast<cudaMemAllocNodeParams*>(params)));
}
CUresult cuGraphAddMemFreeNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                               CUdeviceptr ptr) {
    return from_runtime(cudaGraphAddMemFreeNode(node, graph, dependencies, count,
                                                reinterpret_cast<void*>(static_cast<uintptr_t>(ptr))));
}
CUresult cuGraphMemFreeNodeGetParams(CUgraphNode node, CUdeviceptr* ptr) {
    return from_runtime(cudaGraphMemFreeNodeGetParams(node, ptr));
}

// ---- the graph's shape --------------------------------------------------------------------------

CUresult cuGraphDestroyNode(CUgraphNode node) { return from_runtime(cudaGraphDestroyNode(node)); }
CUresult cuGraphNodeGetType(CUgraphNode node, int* type) { return from_runtime(cudaGraphNodeGetType(node, type)); }
CUresult cuGraphNodeFindInClone(CUgraphNode* found, CUgraphNode original, CUgraph clone) {
    return from_runtime(cudaGraphNodeFindInClone(found, original, clone));
}
CUresult cuGraphGetRootNodes(CUgraph graph, CUgraphNode* nodes, size_t* count) {
    return from_runtime(cudaGraphGetRootNodes(graph, nodes, count));
}
CUresult cuGraphGetEdges(CUgraph graph, CUgraphNode* from, CUgraphNode* to, size_t* count) {
    return from_runtime(cudaGraphGetEdges(graph, from, to, nullptr, count));
}
CUresult cuGraphGetEdges_v2(CUgraph graph, CUgraphNode* from, CUgraphNode* to, void* edges, size_t* count) {
    return from_runtime(cudaGraphGetEdges(graph, from, to, static_cast<cudaGraphEdgeData*>(edges), count));
}
CUresult cuGraphNodeGetDependencies(CUgraphNode node, CUgraphNode* dependencies, size_t* count) {
    return from_runtime(cudaGraphNodeGetDependencies(node, dependencies, nullptr, count));
}
CUresult cuGraphNodeGetDependencies_v2(CUgraphNode node, CUgraphNode* dependencies, void* edges, size_t* count) {
    return from_runtime(
        cudaGraphNodeGetDependencies(node, dependencies, static_cast<cudaGraphEdgeData*>(edges), count));
}
CUresult cuGraphNodeGetDependentNodes(CUgraphNode node, CUgraphNode* dependents, size_t* count) {
    return from_runtime(cudaGraphNodeGetDependentNodes(node, dependents, nullptr, count));
}
CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode node, CUgraphNode* dependents, void* edges, size_t* count) {
    return from_runtime(
        cudaGraphNodeGetDependentNodes(node, dependents, static_cast<cudaGraphEdgeData*>(edges), count));
}
CUresult cuGraphAddDependencies(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to, size_t count) {
    return from_runtime(cudaGraphAddDependencies(graph, from, to, nullptr, count));
}
CUresult cuGraphRemoveDependencies(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to, size_t count) {
    return from_runtime(cudaGraphRemoveDependencies(graph, from, to, nullptr, count));
}
CUresult cuGraphRemoveDependencies_v2(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to, const void* edges,
                                      size_t count) {
    return from_runtime(
        cudaGraphRemoveDependencies(graph, from, to, static_cast<const cudaGraphEdgeData*>(edges), count));
}

// ---- executable graphs --------------------------------------------------------------------------

CUresult cuGraphInstantiateWithParams(CUgraphExec* exec, CUgraph graph, void* params) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaGraphInstantiateWithParams(exec, graph, static_cast<cudaGraphInstantiateParams*>(params)));
}
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* exec, CUgraph graph, void* params) {
    return cuGraphInstantiateWithParams(exec, graph, params);
}
CUresult cuGraphExecGetFlags(CUgraphExec exec, unsigned long long* flags) {
    return from_runtime(cudaGraphExecGetFlags(exec, flags));
}
// CUgraphExecUpdateResultInfo is the runtime's cudaGraphExecUpdateResultInfo.
CUresult cuGraphExecUpdate_v2(CUgraphExec exec, CUgraph graph, void* result_info) {
    return from_runtime(cudaGraphExecUpdate(exec, graph, static_cast<cudaGraphExecUpdateResultInfo*>(result_info)));
}
// The CUDA 11 form: the error node and the result apart.
CUresult cuGraphExecUpdate(CUgraphExec exec, CUgraph graph, CUgraphNode* error_node, int* result) {
    cudaGraphExecUpdateResultInfo info{};
    const cudaError_t e = cudaGraphExecUpdate(exec, graph, &info);
    if (error_node) *error_node = info.errorNode;
    if (result) *result = info.result;
    return from_runtime(e);
}
CUresult cuGraphUpload(CUgraphExec exec, CUstream stream) {
    return from_runtime(cudaGraphUpload(exec, reinterpret_cast<cudaStream_t>(stream)));
}
CUresult cuGraphUpload_ptsz(CUgraphExec exec, CUstream stream) { return cuGraphUpload(exec, stream); }
CUresult cuGraphNodeSetEnabled(CUgraphExec exec, CUgraphNode node, unsigned enabled) {
    return from_runtime(cudaGraphNodeSetEnabled(exec, node, enabled));
}
CUresult cuGraphNodeGetEnabled(CUgraphExec exec, CUgraphNode node, unsigned* enabled) {
    return from_runtime(cudaGraphNodeGetEnabled(exec, node, enabled));
}

}  // extern "C"

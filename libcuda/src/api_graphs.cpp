// CUDA graphs and stream capture through the driver API: a CUgraph is the runtime's cudaGraph_t,
// a CUgraphNode its node, a CUgraphExec its executable graph, and cuLaunchKernel on a capturing
// stream is captured as a kernel node of the module's kernel, as cudaLaunchKernel is.
#include "contexts.hpp"
#include "modules.hpp"
#include "module_kernels.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"
#include "versioned_api.hpp"

using namespace cudabridge::libcuda;

namespace {
cudaStream_t as_stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaStream_t per_thread_if_null(CUstream s) { return as_stream(s ? s : CU_STREAM_PER_THREAD); }
}  // namespace

extern "C" {

CUresult cuGraphCreate(CUgraph* graph, unsigned flags) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaGraphCreate(graph, flags));
}
CUresult cuGraphDestroy(CUgraph graph) { return from_runtime(cudaGraphDestroy(graph)); }
CUresult cuGraphClone(CUgraph* clone, CUgraph original) { return from_runtime(cudaGraphClone(clone, original)); }
CUresult cuGraphGetNodes(CUgraph graph, CUgraphNode* nodes, size_t* count) {
    return from_runtime(cudaGraphGetNodes(graph, nodes, count));
}
CUresult cuGraphAddEmptyNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count) {
    return from_runtime(cudaGraphAddEmptyNode(node, graph, dependencies, count));
}
// CUDA_HOST_NODE_PARAMS and cudaHostNodeParams are one layout (the function, its argument).
CUresult cuGraphAddHostNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                            const void* params) {
    return from_runtime(
        cudaGraphAddHostNode(node, graph, dependencies, count, static_cast<const cudaHostNodeParams*>(params)));
}

// A kernel node of a module's kernel (a CUfunction, or a library's CUkernel: the same handle),
// its arguments copied now, as CUDA copies them.
CUresult cuGraphAddKernelNode_v2(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                 const CUDA_KERNEL_NODE_PARAMS* p) {
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    if (p->extra) return not_supported("cuGraphAddKernelNode with `extra` arguments");
    CUfunction f = p->func ? p->func : reinterpret_cast<CUfunction>(p->kern);
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuGraphAddKernelNode: no such function");
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudabridge::cudart::add_module_kernel_node(
        node, graph, dependencies, count, f->module->module, f->name, {p->gridDimX, p->gridDimY, p->gridDimZ},
        {p->blockDimX, p->blockDimY, p->blockDimZ}, p->sharedMemBytes, p->kernelParams));
}

CUresult cuGraphAddDependencies_v2(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to, const void* edges,
                                   size_t count) {
    return from_runtime(
        cudabridge::cudart::add_dependencies(graph, from, to, static_cast<const cudaGraphEdgeData*>(edges), count));
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaGraphInstantiateWithFlags(exec, graph, flags));
}
CUresult cuGraphExecDestroy(CUgraphExec exec) { return from_runtime(cudaGraphExecDestroy(exec)); }
CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaGraphLaunch(exec, as_stream(stream)));
}
CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaGraphLaunch(exec, per_thread_if_null(stream)));
}
CUresult cuGraphDebugDotPrint(CUgraph graph, const char* path, unsigned flags) {
    return from_runtime(cudaGraphDebugDotPrint(graph, path, flags));
}

// CUstreamCaptureMode and CUstreamCaptureStatus share the runtime's numbers.
CUresult cuStreamBeginCapture_v2(CUstream stream, int mode) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamBeginCapture(as_stream(stream), mode));
}
CUresult cuStreamBeginCapture_v2_ptsz(CUstream stream, int mode) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamBeginCapture(per_thread_if_null(stream), mode));
}
CUresult cuStreamEndCapture(CUstream stream, CUgraph* graph) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamEndCapture(as_stream(stream), graph));
}
CUresult cuStreamEndCapture_ptsz(CUstream stream, CUgraph* graph) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamEndCapture(per_thread_if_null(stream), graph));
}
CUresult cuStreamIsCapturing(CUstream stream, int* status) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamIsCapturing(as_stream(stream), status));
}
CUresult cuStreamIsCapturing_ptsz(CUstream stream, int* status) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamIsCapturing(per_thread_if_null(stream), status));
}

}  // extern "C"

// CUDA graphs: building (cudaGraphAdd*), inspecting, cloning, instantiating, updating and launching
// (graph.hpp has the model). Handles are checked against the live ones, so a destroyed or foreign
// handle is cudaErrorInvalidValue, not a crash.
#include "errors.hpp"
#include "graph.hpp"
#include "handles.hpp"
#include "registration.hpp"
#include "run_summary.hpp"
#include "stream_capture.hpp"
#include "texture_types.hpp"
#include "versioned_api.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>

extern "C" cudaError_t cudaMalloc(void** ptr, size_t size);

using namespace cudabridge::cudart;

namespace {

std::mutex mutex;
std::set<const CUgraph_st*>& live_graphs() {
    static auto* s = new std::set<const CUgraph_st*>;
    return *s;
}
std::set<const CUgraphExec_st*>& live_execs() {
    static auto* s = new std::set<const CUgraphExec_st*>;
    return *s;
}

bool live(const CUgraph_st* g) {
    std::lock_guard lock(mutex);
    return g && live_graphs().count(g);
}
bool live(const CUgraphExec_st* e) {
    std::lock_guard lock(mutex);
    return e && live_execs().count(e);
}
// A node of a live graph (its owner is checked first: a node pointer is only read once its
// graph is known to be alive).
bool live(const CUgraphNode_st* n, const CUgraph_st* in = nullptr) {
    if (!n) return false;
    std::lock_guard lock(mutex);
    for (const CUgraph_st* g : live_graphs())
        if ((!in || g == in) && g->owns(n)) return true;
    return false;
}

cudaGraph_t adopt(std::unique_ptr<CUgraph_st> g) { return adopt_graph(std::move(g)); }

std::unique_ptr<CUgraphNode_st> node_of(int type) {
    auto n = std::make_unique<CUgraphNode_st>();
    n->type = type;
    return n;
}

cudaError_t kernel_node(const cudaKernelNodeParams* p, CUgraphNode_st& n) {
    if (!p) return record(cudaErrorInvalidValue);
    if (p->extra && !p->kernelParams)
        return not_supported("a kernel node with its arguments in 'extra' (CU_LAUNCH_PARAM_BUFFER_POINTER)");
    kernel_record* k = registered().kernel(p->func);
    if (!k) return record(cudaErrorInvalidDeviceFunction);
    n.kernel.grid = p->gridDim;
    n.kernel.block = p->blockDim;
    n.kernel.shared_memory = p->sharedMemBytes;
    return copy_kernel_arguments(k, p->kernelParams, n.kernel);
}

cudaMemcpy3DParms one_dimensional(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    cudaMemcpy3DParms p{};
    p.dstPtr = {dst, count, count, 1};
    p.srcPtr = {const_cast<void*>(src), count, count, 1};
    p.extent = {count, 1, 1};
    p.kind = kind;
    return p;
}

template <class T>
cudaError_t list(const std::vector<T*>& items, T** out, size_t* count) {
    if (!count) return record(cudaErrorInvalidValue);
    if (!out) {
        *count = items.size();
        return cudaSuccess;
    }
    const size_t n = std::min(*count, items.size());
    for (size_t i = 0; i < n; ++i) out[i] = items[i];
    for (size_t i = n; i < *count; ++i) out[i] = nullptr;
    *count = n;
    return cudaSuccess;
}

cudaError_t instantiate(cudaGraphExec_t* out, cudaGraph_t graph) {
    if (!out || !live(graph)) return record(cudaErrorInvalidValue);
    auto exec = std::make_unique<CUgraphExec_st>();
    exec->graph = graph->clone(&exec->from_original);
    if (!exec->graph->topological_order(exec->order))
        return fail(cudaErrorInvalidValue, "cudaGraphInstantiate: the graph has a cycle");
    std::lock_guard lock(mutex);
    live_execs().insert(exec.get());
    *out = exec.release();
    return cudaSuccess;
}

CUgraphNode_st* exec_node(cudaGraphExec_t exec, cudaGraphNode_t node, int type) {
    if (!live(exec)) return nullptr;
    CUgraphNode_st* n = exec->ours(node);
    return n && n->type == type ? n : nullptr;
}

}  // namespace

cudaGraph_t cudabridge::cudart::adopt_graph(std::unique_ptr<CUgraph_st> g) {
    std::lock_guard lock(mutex);
    live_graphs().insert(g.get());
    return g.release();
}

bool cudabridge::cudart::live_graph(const CUgraph_st* g) { return live(g); }

void cudabridge::cudart::accept_graph(const CUgraph_st* g) {
    std::lock_guard lock(mutex);
    live_graphs().insert(g);
}

void cudabridge::cudart::forget_graph(const CUgraph_st* g) {
    std::lock_guard lock(mutex);
    live_graphs().erase(g);
}

cudaError_t cudabridge::cudart::add_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                         size_t count, std::unique_ptr<CUgraphNode_st> node) {
    if (!out || !live(graph) || (count && !dependencies)) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i)
        if (!live(dependencies[i], graph))
            return fail(cudaErrorInvalidValue, "cudaGraphAdd*Node: a dependency is not a node of this graph");
    *out = graph->add(std::move(node), dependencies, count);
    return cudaSuccess;
}

extern "C" {

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned flags) {
    if (!graph || flags) return record(cudaErrorInvalidValue);
    *graph = adopt(std::make_unique<CUgraph_st>());
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    {
        std::lock_guard lock(mutex);
        if (!graph || !live_graphs().erase(graph)) return record(cudaErrorInvalidValue);
    }
    delete graph;
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original) {
    if (!clone || !live(original)) return record(cudaErrorInvalidValue);
    *clone = adopt(original->clone());
    return cudaSuccess;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* found, cudaGraphNode_t original, cudaGraph_t clone) {
    if (!found || !live(clone) || !live(original)) return record(cudaErrorInvalidValue);
    // Clones keep the original's node order.
    const auto& from = original->owner->nodes;
    for (size_t i = 0; i < from.size() && i < clone->nodes.size(); ++i)
        if (from[i].get() == original) {
            *found = clone->nodes[i].get();
            return cudaSuccess;
        }
    return record(cudaErrorInvalidValue);
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                  size_t count) {
    return add_node(out, graph, dependencies, count, node_of(cudaGraphNodeTypeEmpty));
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, const cudaKernelNodeParams* params) {
    auto n = node_of(cudaGraphNodeTypeKernel);
    if (cudaError_t e = kernel_node(params, *n); e != cudaSuccess) return e;
    return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, const cudaMemcpy3DParms* params) {
    if (!params) return record(cudaErrorInvalidValue);
    cudaMemcpy3DParms linear;
    cudaError_t error = cudaSuccess;
    if (array_copy_parms(*params, linear, error) && error != cudaSuccess) return error;  // unknown array, no fit
    auto n = node_of(cudaGraphNodeTypeMemcpy);
    n->copy = *params;
    return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                     size_t count, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    auto n = node_of(cudaGraphNodeTypeMemcpy);
    n->copy = one_dimensional(dst, src, bytes, kind);
    return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, const cudaMemsetParams* params) {
    if (!params || (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4))
        return record(cudaErrorInvalidValue);
    auto n = node_of(cudaGraphNodeTypeMemset);
    n->memset = *params;
    return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                 size_t count, const cudaHostNodeParams* params) {
    if (!params || !params->fn) return record(cudaErrorInvalidValue);
    auto n = node_of(cudaGraphNodeTypeHost);
    n->host = *params;
    return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                       size_t count, cudaGraph_t child) {
    if (!live(child) || child == graph) return record(cudaErrorInvalidValue);
    auto n = node_of(cudaGraphNodeTypeGraph);
    n->child = child->clone();  // CUDA clones the child: later changes to it do not reach the node
    return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                        size_t count, cudaEvent_t event) {
    if (!event) return record(cudaErrorInvalidValue);
    auto n = node_of(cudaGraphNodeTypeEventRecord);
    n->event = event;
    return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                      size_t count, cudaEvent_t event) {
    if (!event) return record(cudaErrorInvalidValue);
    auto n = node_of(cudaGraphNodeTypeWaitEvent);
    n->event = event;
    return add_node(out, graph, dependencies, count, std::move(n));
}

// The memory exists from the node's creation for the graph's lifetime (its address is the one
// kernels were given when the graph was built).
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                     size_t count, cudaMemAllocNodeParams* params) {
    if (!params || params->bytesize == 0 || params->poolProps.location.type != cudaMemLocationTypeDevice)
        return record(cudaErrorInvalidValue);
    if (!live(graph)) return record(cudaErrorInvalidValue);
    auto a = std::make_shared<graph_allocation>();
    if (cudaError_t e = cudaMalloc(&a->ptr, params->bytesize); e != cudaSuccess) return e;
    a->hold(params->bytesize);
    remember_graph_allocation(a);
    auto n = node_of(cudaGraphNodeTypeMemAlloc);
    n->allocation = a;
    if (cudaError_t e = add_node(out, graph, dependencies, count, std::move(n)); e != cudaSuccess) return e;
    params->dptr = a->ptr;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                    size_t count, void* ptr) {
    if (!ptr) return record(cudaErrorInvalidValue);
    auto n = node_of(cudaGraphNodeTypeMemFree);
    n->freed = ptr;
    n->allocation = graph_allocation_at(ptr);
    return add_node(out, graph, dependencies, count, std::move(n));
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
    if (!live(node)) return record(cudaErrorInvalidValue);
    CUgraph_st* g = node->owner;
    for (auto& n : g->nodes) std::erase(n->dependencies, node);
    std::erase_if(g->nodes, [node](const auto& n) { return n.get() == node; });
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
    if (!live(graph)) return record(cudaErrorInvalidValue);
    std::vector<CUgraphNode_st*> all;
    for (auto& n : graph->nodes) all.push_back(n.get());
    return list(all, nodes, count);
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
    if (!live(graph)) return record(cudaErrorInvalidValue);
    std::vector<CUgraphNode_st*> roots;
    for (auto& n : graph->nodes)
        if (n->dependencies.empty()) roots.push_back(n.get());
    return list(roots, nodes, count);
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, int* type) {
    if (!type || !live(node)) return record(cudaErrorInvalidValue);
    *type = node->type;
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* params) {
    if (!params || !live(node) || node->type != cudaGraphNodeTypeKernel) return record(cudaErrorInvalidValue);
    *params = {};
    params->func = const_cast<void*>(node->kernel.function);
    params->gridDim = node->kernel.grid;
    params->blockDim = node->kernel.block;
    params->sharedMemBytes = node->kernel.shared_memory;
    params->kernelParams = node->kernel.pointers.data();
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* params) {
    if (!live(node) || node->type != cudaGraphNodeTypeKernel) return record(cudaErrorInvalidValue);
    return kernel_node(params, *node);
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* params) {
    if (!params || !live(node) || node->type != cudaGraphNodeTypeMemcpy) return record(cudaErrorInvalidValue);
    *params = node->copy;
    return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* params) {
    if (!params || !live(node) || node->type != cudaGraphNodeTypeMemcpy) return record(cudaErrorInvalidValue);
    node->copy = *params;
    return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src, size_t count,
                                           cudaMemcpyKind kind) {
    if (!live(node) || node->type != cudaGraphNodeTypeMemcpy) return record(cudaErrorInvalidValue);
    node->copy = one_dimensional(dst, src, count, kind);
    return cudaSuccess;
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* params) {
    if (!params || !live(node) || node->type != cudaGraphNodeTypeMemset) return record(cudaErrorInvalidValue);
    *params = node->memset;
    return cudaSuccess;
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* params) {
    if (!params || !live(node) || node->type != cudaGraphNodeTypeMemset) return record(cudaErrorInvalidValue);
    node->memset = *params;
    return cudaSuccess;
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* params) {
    if (!params || !live(node) || node->type != cudaGraphNodeTypeHost) return record(cudaErrorInvalidValue);
    *params = node->host;
    return cudaSuccess;
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* params) {
    if (!params || !params->fn || !live(node) || node->type != cudaGraphNodeTypeHost)
        return record(cudaErrorInvalidValue);
    node->host = *params;
    return cudaSuccess;
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph) {
    if (!graph || !live(node) || node->type != cudaGraphNodeTypeGraph) return record(cudaErrorInvalidValue);
    *graph = node->child.get();
    return cudaSuccess;
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
    if (!event || !live(node) || node->type != cudaGraphNodeTypeEventRecord) return record(cudaErrorInvalidValue);
    *event = node->event;
    return cudaSuccess;
}
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    if (!event || !live(node) || node->type != cudaGraphNodeTypeEventRecord) return record(cudaErrorInvalidValue);
    node->event = event;
    return cudaSuccess;
}
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
    if (!event || !live(node) || node->type != cudaGraphNodeTypeWaitEvent) return record(cudaErrorInvalidValue);
    *event = node->event;
    return cudaSuccess;
}
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    if (!event || !live(node) || node->type != cudaGraphNodeTypeWaitEvent) return record(cudaErrorInvalidValue);
    node->event = event;
    return cudaSuccess;
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params) {
    if (!params || !live(node) || node->type != cudaGraphNodeTypeMemAlloc) return record(cudaErrorInvalidValue);
    *params = {};
    params->poolProps.allocType = 1;
    params->poolProps.location = {cudaMemLocationTypeDevice, 0};
    params->bytesize = node->allocation->bytes;
    params->dptr = node->allocation->ptr;
    return cudaSuccess;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* ptr) {
    if (!ptr || !live(node) || node->type != cudaGraphNodeTypeMemFree) return record(cudaErrorInvalidValue);
    *static_cast<void**>(ptr) = node->freed;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned enabled) {
    if (!live(exec)) return record(cudaErrorInvalidValue);
    CUgraphNode_st* n = exec->ours(node);
    if (!n) return record(cudaErrorInvalidValue);
    n->enabled = enabled != 0;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned* enabled) {
    if (!enabled || !live(exec)) return record(cudaErrorInvalidValue);
    CUgraphNode_st* n = exec->ours(node);
    if (!n) return record(cudaErrorInvalidValue);
    *enabled = n->enabled ? 1 : 0;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long /*flags*/) {
    return instantiate(exec, graph);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long /*flags*/) {
    return instantiate(exec, graph);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* params) {
    const cudaError_t e = instantiate(exec, graph);
    if (params) {
        params->errNode_out = nullptr;
        params->result_out = e == cudaSuccess ? 0 : 1;  // cudaGraphInstantiateSuccess, ...Error
    }
    return e;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long* flags) {
    if (!flags || !live(exec)) return record(cudaErrorInvalidValue);
    *flags = 0;
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    {
        std::lock_guard lock(mutex);
        if (!exec || !live_execs().erase(exec)) return record(cudaErrorInvalidValue);
    }
    delete exec;
    return cudaSuccess;
}

// On a capturing stream the graph becomes a child node of the capture; otherwise it is queued.
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
    if (!live(exec)) return record(cudaErrorInvalidValue);
    auto child = std::make_unique<CUgraphNode_st>();
    child->type = cudaGraphNodeTypeGraph;
    if (capturing(stream)) {
        child->child = exec->graph->clone();
        cudaError_t result = cudaSuccess;
        if (captured(stream, std::move(child), result)) return result;
    }
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return replay(*exec, stream);
}

// Nothing to upload: a launch reads the graph from host memory.
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t /*stream*/) {
    return live(exec) ? cudaSuccess : record(cudaErrorInvalidValue);
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t s) {
    return cudaGraphLaunch(exec, per_thread_if_null(s));
}
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t exec, cudaStream_t s) {
    return cudaGraphUpload(exec, per_thread_if_null(s));
}
cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                cudaGraphInstantiateParams* params) {
    return cudaGraphInstantiateWithParams(exec, graph, params);
}

// The executable graph takes the parameters of `graph` when the two have the same nodes, of the
// same types, with the same dependencies (CUDA's rule for a whole-graph update).
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo* info) {
    if (!live(exec) || !live(graph)) return record(cudaErrorInvalidValue);
    auto fail_with = [&](int result, CUgraphNode_st* node) {
        if (info) *info = {result, node, nullptr};
        return record(cudaErrorGraphExecUpdateFailure);
    };
    const auto& ours = exec->graph->nodes;
    if (ours.size() != graph->nodes.size()) return fail_with(cudaGraphExecUpdateErrorTopologyChanged, nullptr);
    for (size_t i = 0; i < ours.size(); ++i) {
        const CUgraphNode_st& from = *graph->nodes[i];
        if (from.type != ours[i]->type)
            return fail_with(cudaGraphExecUpdateErrorNodeTypeChanged, graph->nodes[i].get());
        if (from.dependencies.size() != ours[i]->dependencies.size())
            return fail_with(cudaGraphExecUpdateErrorTopologyChanged, graph->nodes[i].get());
    }
    for (size_t i = 0; i < ours.size(); ++i) {
        auto copy = copy_node(*graph->nodes[i]);
        auto& n = *ours[i];
        n.kernel = std::move(copy->kernel);
        n.copy = copy->copy;
        n.memset = copy->memset;
        n.host = copy->host;
        n.event = copy->event;
        n.child = std::move(copy->child);
        n.allocation = copy->allocation;
        n.freed = copy->freed;
    }
    for (size_t i = 0; i < ours.size(); ++i) exec->from_original[i].first = graph->nodes[i].get();
    if (info) *info = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
    return cudaSuccess;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* params) {
    CUgraphNode_st* n = exec_node(exec, node, cudaGraphNodeTypeKernel);
    if (!n) return record(cudaErrorInvalidValue);
    return kernel_node(params, *n);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* params) {
    CUgraphNode_st* n = exec_node(exec, node, cudaGraphNodeTypeMemcpy);
    if (!n || !params) return record(cudaErrorInvalidValue);
    n->copy = *params;
    return cudaSuccess;
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node, void* dst, const void* src,
                                               size_t count, cudaMemcpyKind kind) {
    CUgraphNode_st* n = exec_node(exec, node, cudaGraphNodeTypeMemcpy);
    if (!n) return record(cudaErrorInvalidValue);
    n->copy = one_dimensional(dst, src, count, kind);
    return cudaSuccess;
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemsetParams* params) {
    CUgraphNode_st* n = exec_node(exec, node, cudaGraphNodeTypeMemset);
    if (!n || !params) return record(cudaErrorInvalidValue);
    n->memset = *params;
    return cudaSuccess;
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* params) {
    CUgraphNode_st* n = exec_node(exec, node, cudaGraphNodeTypeHost);
    if (!n || !params || !params->fn) return record(cudaErrorInvalidValue);
    n->host = *params;
    return cudaSuccess;
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraph_t child) {
    CUgraphNode_st* n = exec_node(exec, node, cudaGraphNodeTypeGraph);
    if (!n || !live(child)) return record(cudaErrorInvalidValue);
    n->child = child->clone();
    return cudaSuccess;
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event) {
    CUgraphNode_st* n = exec_node(exec, node, cudaGraphNodeTypeEventRecord);
    if (!n || !event) return record(cudaErrorInvalidValue);
    n->event = event;
    return cudaSuccess;
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event) {
    CUgraphNode_st* n = exec_node(exec, node, cudaGraphNodeTypeWaitEvent);
    if (!n || !event) return record(cudaErrorInvalidValue);
    n->event = event;
    return cudaSuccess;
}

// Graphviz text of the graph: one box per node with its type, one arrow per dependency.
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned /*flags*/) {
    if (!live(graph) || !path) return record(cudaErrorInvalidValue);
    FILE* f = std::fopen(path, "w");
    if (!f) return fail(cudaErrorInvalidValue, "cudaGraphDebugDotPrint: cannot write the file");
    static const char* names[] = {"kernel",     "memcpy",       "memset", "host", "graph",     "empty",
                                  "wait event", "event record", "",       "",     "mem alloc", "mem free"};
    std::fprintf(f, "digraph cudaGraph {\n");
    for (auto& n : graph->nodes)
        std::fprintf(f, "  \"%p\" [shape=box label=\"%s\"];\n", static_cast<void*>(n.get()),
                     n->type >= 0 && n->type < 12 ? names[n->type] : "node");
    for (auto& n : graph->nodes)
        for (auto* d : n->dependencies)
            std::fprintf(f, "  \"%p\" -> \"%p\";\n", static_cast<void*>(d), static_cast<void*>(n.get()));
    std::fprintf(f, "}\n");
    return std::fclose(f) == 0 ? cudaSuccess : fail(cudaErrorInvalidValue, "cudaGraphDebugDotPrint: write failed");
}

// Graph memory is the runtime's own allocations, held while a graph made from their nodes lives:
// used and reserved are the same (nothing is cached to trim), and only the high marks can be
// reset (to the current use), as CUDA allows.
cudaError_t cudaDeviceGraphMemTrim(int /*device*/) { return cudaSuccess; }
cudaError_t cudaDeviceGetGraphMemAttribute(int /*device*/, int attr, void* value) {
    if (!value || attr < 0 || attr > 3) return record(cudaErrorInvalidValue);
    const graph_memory_use use = graph_memory();
    // cudaGraphMemAttrUsedMemCurrent 0, UsedMemHigh 1, ReservedMemCurrent 2, ReservedMemHigh 3
    *static_cast<unsigned long long*>(value) = attr % 2 == 0 ? use.current : use.high;
    return cudaSuccess;
}
cudaError_t cudaDeviceSetGraphMemAttribute(int /*device*/, int attr, void* value) {
    if (!value || (attr != 1 && attr != 3) || *static_cast<unsigned long long*>(value) != 0)
        return fail(cudaErrorInvalidValue, "cudaDeviceSetGraphMemAttribute: only a high mark, reset to 0");
    reset_graph_memory_high();
    return cudaSuccess;
}

}  // extern "C"

cudaError_t cudabridge::cudart::add_dependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                                 const cudaGraphNode_t* to, const cudaGraphEdgeData* /*edges*/,
                                                 size_t count) {
    if (!live(graph) || (count && (!from || !to))) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i) {
        if (!live(from[i], graph) || !live(to[i], graph) || from[i] == to[i]) return record(cudaErrorInvalidValue);
        auto& deps = to[i]->dependencies;
        if (std::find(deps.begin(), deps.end(), from[i]) == deps.end()) deps.push_back(from[i]);
    }
    return cudaSuccess;
}

cudaError_t cudabridge::cudart::remove_dependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                                    const cudaGraphNode_t* to, const cudaGraphEdgeData* /*edges*/,
                                                    size_t count) {
    if (!live(graph) || (count && (!from || !to))) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i) {
        if (!live(to[i], graph)) return record(cudaErrorInvalidValue);
        std::erase(to[i]->dependencies, from[i]);
    }
    return cudaSuccess;
}

cudaError_t cudabridge::cudart::graph_edges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                                            cudaGraphEdgeData* edges, size_t* count) {
    if (!live(graph) || !count) return record(cudaErrorInvalidValue);
    std::vector<CUgraphNode_st*> f, t;
    for (auto& n : graph->nodes)
        for (auto* d : n->dependencies) {
            f.push_back(d);
            t.push_back(n.get());
        }
    if (!from && !to) {
        *count = f.size();
        return cudaSuccess;
    }
    if (!from || !to) return record(cudaErrorInvalidValue);
    const size_t n = std::min(*count, f.size());
    for (size_t i = 0; i < n; ++i) {
        from[i] = f[i];
        to[i] = t[i];
        if (edges) edges[i] = {};
    }
    *count = n;
    return cudaSuccess;
}

cudaError_t cudabridge::cudart::node_dependencies(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges,
                                                  size_t* count) {
    if (!live(node)) return record(cudaErrorInvalidValue);
    if (edges && out)
        for (size_t i = 0; i < std::min(*count, node->dependencies.size()); ++i) edges[i] = {};
    return list(node->dependencies, out, count);
}

cudaError_t cudabridge::cudart::node_dependents(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges,
                                                size_t* count) {
    if (!live(node)) return record(cudaErrorInvalidValue);
    std::vector<CUgraphNode_st*> dependents;
    for (auto& n : node->owner->nodes)
        if (std::find(n->dependencies.begin(), n->dependencies.end(), node) != n->dependencies.end())
            dependents.push_back(n.get());
    if (edges && out)
        for (size_t i = 0; i < std::min(*count, dependents.size()); ++i) edges[i] = {};
    return list(dependents, out, count);
}

// cudaGraphAddNode, the one call that adds a node of any kind from cudaGraphNodeParams, and the
// kind only it adds: conditional nodes (if, while, switch) with their handles. A handle is the
// device address of the condition's value (graph.hpp, graph_condition); the body graphs are live
// graphs the program fills in with the graph calls or by capturing into them.
#include "errors.hpp"
#include "graph.hpp"
#include "versioned_api.hpp"

#include <map>
#include <mutex>
#include <string>

extern "C" {
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, const cudaKernelNodeParams* params);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, const cudaMemcpy3DParms* params);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, const cudaMemsetParams* params);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                 size_t count, const cudaHostNodeParams* params);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                       size_t count, cudaGraph_t child);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                  size_t count);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                        size_t count, cudaEvent_t event);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                      size_t count, cudaEvent_t event);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                     size_t count, cudaMemAllocNodeParams* params);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                    size_t count, void* ptr);
}

using namespace cudabridge::cudart;

namespace {

std::mutex mutex;
std::map<cudaGraphConditionalHandle, std::weak_ptr<graph_condition>>& handles() {
    static auto* h = new std::map<cudaGraphConditionalHandle, std::weak_ptr<graph_condition>>;
    return *h;
}

std::shared_ptr<graph_condition> condition_of(cudaGraphConditionalHandle handle) {
    std::lock_guard lock(mutex);
    const auto it = handles().find(handle);
    return it == handles().end() ? nullptr : it->second.lock();
}

bool valid_body_count(int type, unsigned size) {
    switch (type) {
    case cudaGraphCondTypeIf:
        return size == 1 || size == 2;
    case cudaGraphCondTypeWhile:
        return size == 1;
    case cudaGraphCondTypeSwitch:
        return size > 0;
    default:
        return false;
    }
}

cudaError_t add_conditional(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies, size_t count,
                            cudaConditionalNodeParams& p) {
    auto condition = condition_of(p.handle);
    if (!condition) return fail(cudaErrorInvalidValue, "cudaGraphAddNode: not a conditional handle this program made");
    if (!valid_body_count(p.type, p.size))
        return fail(cudaErrorInvalidValue, ("cudaGraphAddNode: a conditional node of type " + std::to_string(p.type) +
                                            " cannot have " + std::to_string(p.size) + " body graphs")
                                               .c_str());
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeConditional;
    node->condition_type = p.type;
    node->condition = std::move(condition);
    for (unsigned i = 0; i < p.size; ++i) node->bodies.push_back(std::make_unique<CUgraph_st>());
    CUgraphNode_st* raw = node.get();
    if (cudaError_t e = add_node(out, graph, dependencies, count, std::move(node)); e != cudaSuccess) return e;
    for (auto& body : raw->bodies) {
        accept_graph(body.get());
        raw->body_handles.push_back(body.get());
    }
    raw->bodies_are_live = true;
    p.phGraph_out = raw->body_handles.data();
    return cudaSuccess;
}

// A child graph moved into its node: the node owns it from now on, and the handle is spent.
cudaError_t add_moved_child(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies, size_t count,
                            cudaGraph_t child) {
    if (!live_graph(child) || child == graph) return record(cudaErrorInvalidValue);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeGraph;
    if (cudaError_t e = add_node(out, graph, dependencies, count, std::move(node)); e != cudaSuccess) return e;
    forget_graph(child);
    (*out)->child.reset(child);
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* out, cudaGraph_t graph, unsigned default_value,
                                             unsigned flags) {
    if (!out || !live_graph(graph) || (flags & ~cudaGraphCondAssignDefault)) return record(cudaErrorInvalidValue);
    auto c = std::make_shared<graph_condition>();
    if (cudaError_t e = cudaMalloc(&c->ptr, sizeof(unsigned)); e != cudaSuccess) return e;
    c->default_value = default_value;
    c->assign_default = flags & cudaGraphCondAssignDefault;
    if (cudaError_t e = cudaMemcpy(c->ptr, &c->default_value, sizeof(unsigned), cudaMemcpyHostToDevice);
        e != cudaSuccess)
        return e;
    graph->conditions.push_back(c);
    *out = reinterpret_cast<uintptr_t>(c->ptr);
    std::lock_guard lock(mutex);
    std::erase_if(handles(), [](const auto& h) { return h.second.expired(); });
    handles()[*out] = c;
    return cudaSuccess;
}

}  // extern "C"

// Edge data (ports, programmatic edges) is not modeled: every edge is a full dependency.
cudaError_t cudabridge::cudart::add_node_from_params(cudaGraphNode_t* out, cudaGraph_t graph,
                                                     const cudaGraphNode_t* dependencies,
                                                     const cudaGraphEdgeData* /*edges*/, size_t count,
                                                     cudaGraphNodeParams* p) {
    if (!p) return record(cudaErrorInvalidValue);
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphAddKernelNode(out, graph, dependencies, count, &p->kernel);
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(out, graph, dependencies, count, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
        return cudaGraphAddMemsetNode(out, graph, dependencies, count, &p->memset);
    case cudaGraphNodeTypeHost:
        return cudaGraphAddHostNode(out, graph, dependencies, count, &p->host);
    case cudaGraphNodeTypeGraph:
        if (p->graph.ownership == cudaGraphChildGraphOwnershipMove)
            return add_moved_child(out, graph, dependencies, count, p->graph.graph);
        return cudaGraphAddChildGraphNode(out, graph, dependencies, count, p->graph.graph);
    case cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(out, graph, dependencies, count);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(out, graph, dependencies, count, p->eventWait);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(out, graph, dependencies, count, p->eventRecord);
    case cudaGraphNodeTypeMemAlloc:
        return cudaGraphAddMemAllocNode(out, graph, dependencies, count, &p->alloc);
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(out, graph, dependencies, count, p->free);
    case cudaGraphNodeTypeConditional:
        return add_conditional(out, graph, dependencies, count, p->conditional);
    default:
        return not_supported(("cudaGraphAddNode of node type " + std::to_string(p->type)).c_str());
    }
}

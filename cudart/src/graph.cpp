#include "graph.hpp"

#include "module_kernels.hpp"

#include "element_fill.hpp"
#include "errors.hpp"
#include "registration.hpp"
#include "run_summary.hpp"
#include "texture_types.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <string>

extern "C" {
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void* user);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags);
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
}

namespace cudabridge::cudart {

namespace {
std::atomic<unsigned long long> graph_bytes{0}, graph_bytes_high{0};
}  // namespace

void graph_allocation::hold(size_t size) {
    bytes = size;
    const unsigned long long now = graph_bytes += size;
    unsigned long long high = graph_bytes_high.load();
    while (now > high && !graph_bytes_high.compare_exchange_weak(high, now)) {
    }
}

graph_allocation::~graph_allocation() {
    if (!ptr) return;
    (void)cudaFree(ptr);
    graph_bytes -= bytes;
}

graph_memory_use graph_memory() { return {graph_bytes.load(), graph_bytes_high.load()}; }

void reset_graph_memory_high() { graph_bytes_high = graph_bytes.load(); }

graph_condition::~graph_condition() {
    if (ptr) (void)cudaFree(ptr);
}

cudaError_t copy_kernel_arguments(kernel_record* k, void** params, kernel_work& out) {
    if (!k) return fail(cudaErrorInvalidDeviceFunction, "graph kernel node: not a registered kernel");
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbModule_t module = nullptr;
    if (cudaError_t e = registered().module_on_current_device(*k->fatbin, module); e != cudaSuccess) return e;
    if (cudaError_t e = copy_module_kernel_arguments(module, k->name, params, out); e != cudaSuccess) return e;
    out.kernel = k;
    out.function = k->host_function;
    return cudaSuccess;
}

std::unique_ptr<CUgraphNode_st> copy_node(const CUgraphNode_st& node) {
    auto n = std::make_unique<CUgraphNode_st>();
    n->type = node.type;
    n->enabled = node.enabled;
    n->kernel = node.kernel;
    n->kernel.pointers.clear();
    for (auto& a : n->kernel.arguments) n->kernel.pointers.push_back(a.data());
    n->copy = node.copy;
    n->memset = node.memset;
    n->host = node.host;
    n->event = node.event;
    if (node.child) n->child = node.child->clone();
    n->allocation = node.allocation;
    n->freed = node.freed;
    n->condition_type = node.condition_type;
    n->condition = node.condition;
    for (const auto& body : node.bodies) n->bodies.push_back(body->clone());
    return n;
}

namespace {

cudaError_t run_copy(const cudaMemcpy3DParms& node, cudaStream_t stream) {
    cudaMemcpy3DParms p = node;  // a CUDA array's side becomes its memory, pitched (api_arrays.cpp)
    cudaError_t error = cudaSuccess;
    if (array_copy_parms(node, p, error) && error != cudaSuccess) return error;
    const cudaExtent& e = p.extent;
    auto* dst = static_cast<char*>(p.dstPtr.ptr) + p.dstPos.x + p.dstPos.y * p.dstPtr.pitch +
                p.dstPos.z * p.dstPtr.pitch * p.dstPtr.ysize;
    const auto* src = static_cast<const char*>(p.srcPtr.ptr) + p.srcPos.x + p.srcPos.y * p.srcPtr.pitch +
                      p.srcPos.z * p.srcPtr.pitch * p.srcPtr.ysize;
    if (e.height <= 1 && e.depth <= 1) return cudaMemcpyAsync(dst, src, e.width, p.kind, stream);
    for (size_t z = 0; z < std::max<size_t>(e.depth, 1); ++z) {
        const cudaError_t r = cudaMemcpy2DAsync(dst + z * p.dstPtr.pitch * p.dstPtr.ysize, p.dstPtr.pitch,
                                                src + z * p.srcPtr.pitch * p.srcPtr.ysize, p.srcPtr.pitch, e.width,
                                                e.height, p.kind, stream);
        if (r != cudaSuccess) return r;
    }
    return cudaSuccess;
}

cudaError_t run_memset(const cudaMemsetParams& p, cudaStream_t stream) {
    return fill_elements(p.dst, p.pitch, p.value, p.elementSize, p.width, p.height, stream);
}

cudaError_t run_nodes(const std::vector<CUgraphNode_st*>& order, cudaStream_t stream);
cudaError_t run_conditional(const CUgraphNode_st& n, cudaStream_t stream);

// cudaGraphCondAssignDefault: the graph's conditions get their default value as it starts.
cudaError_t assign_defaults(const CUgraph_st& graph, cudaStream_t stream) {
    for (const auto& c : graph.conditions)
        if (c->assign_default)
            if (cudaError_t e =
                    cudaMemcpyAsync(c->ptr, &c->default_value, sizeof(unsigned), cudaMemcpyHostToDevice, stream);
                e != cudaSuccess)
                return e;
    return cudaSuccess;
}

cudaError_t run_graph(const CUgraph_st& graph, cudaStream_t stream) {
    std::vector<CUgraphNode_st*> order;
    if (!graph.topological_order(order)) return record(cudaErrorInvalidValue);
    if (cudaError_t e = assign_defaults(graph, stream); e != cudaSuccess) return e;
    return run_nodes(order, stream);
}

cudaError_t run_node(const CUgraphNode_st& n, cudaStream_t stream) {
    if (!n.enabled) return cudaSuccess;
    switch (n.type) {
    case cudaGraphNodeTypeKernel:
        if (!n.kernel.kernel)  // a module's kernel, from the driver API
            return launch_module_kernel(n.kernel.module, n.kernel.module_kernel, n.kernel.grid, n.kernel.block,
                                        const_cast<void**>(n.kernel.pointers.data()), n.kernel.shared_memory, stream,
                                        false);
        return launch_registered(n.kernel.kernel, n.kernel.grid, n.kernel.block,
                                 const_cast<void**>(n.kernel.pointers.data()), n.kernel.shared_memory, stream);
    case cudaGraphNodeTypeMemcpy:
        return run_copy(n.copy, stream);
    case cudaGraphNodeTypeMemset:
        return run_memset(n.memset, stream);
    case cudaGraphNodeTypeHost:
        return cudaLaunchHostFunc(stream, n.host.fn, n.host.userData);
    case cudaGraphNodeTypeGraph:
        return run_graph(*n.child, stream);
    case cudaGraphNodeTypeConditional:
        return run_conditional(n, stream);
    case cudaGraphNodeTypeEventRecord:
        return cudaEventRecord(n.event, stream);
    case cudaGraphNodeTypeWaitEvent:
        return cudaStreamWaitEvent(stream, n.event, 0);
    case cudaGraphNodeTypeMemFree:
        // The graph's own allocations live as long as the graph; other memory goes back.
        return n.allocation ? cudaSuccess : cudaFreeAsync(n.freed, stream);
    default:  // empty nodes, allocation nodes (the memory exists from the node's creation)
        return cudaSuccess;
    }
}

cudaError_t run_nodes(const std::vector<CUgraphNode_st*>& order, cudaStream_t stream) {
    for (const CUgraphNode_st* n : order)
        if (cudaError_t e = run_node(*n, stream); e != cudaSuccess) return e;
    return cudaSuccess;
}

// The condition's value once the work before it on the stream is done: the replay waits here,
// since what comes next depends on what the kernels wrote.
cudaError_t read_condition(const graph_condition& c, cudaStream_t stream, unsigned& value) {
    if (cudaError_t e = cudaMemcpyAsync(&value, c.ptr, sizeof value, cudaMemcpyDeviceToHost, stream); e != cudaSuccess)
        return e;
    return cudaStreamSynchronize(stream);
}

// If: body 0 when the value is not zero, else body 1 if there is one. While: body 0 as long as
// the value is not zero. Switch: body N for the value N, none past the last.
cudaError_t run_conditional(const CUgraphNode_st& n, cudaStream_t stream) {
    unsigned value = 0;
    if (cudaError_t e = read_condition(*n.condition, stream, value); e != cudaSuccess) return e;
    switch (n.condition_type) {
    case cudaGraphCondTypeIf:
        if (value) return run_graph(*n.bodies.at(0), stream);
        return n.bodies.size() > 1 ? run_graph(*n.bodies[1], stream) : cudaSuccess;
    case cudaGraphCondTypeWhile:
        while (value) {
            if (cudaError_t e = run_graph(*n.bodies.at(0), stream); e != cudaSuccess) return e;
            if (cudaError_t e = read_condition(*n.condition, stream, value); e != cudaSuccess) return e;
        }
        return cudaSuccess;
    default:  // cudaGraphCondTypeSwitch
        return value < n.bodies.size() ? run_graph(*n.bodies[value], stream) : cudaSuccess;
    }
}

}  // namespace

cudaError_t replay(const CUgraphExec_st& exec, cudaStream_t stream) {
    if (cudaError_t e = assign_defaults(*exec.graph, stream); e != cudaSuccess) return e;
    return run_nodes(exec.order, stream);
}

}  // namespace cudabridge::cudart

using namespace cudabridge::cudart;

CUgraphNode_st::~CUgraphNode_st() {
    if (bodies_are_live)
        for (const auto& body : bodies) forget_graph(body.get());
}

CUgraphNode_st* CUgraph_st::add(std::unique_ptr<CUgraphNode_st> node, const cudaGraphNode_t* dependencies,
                                size_t count) {
    node->owner = this;
    for (size_t i = 0; i < count; ++i)
        if (std::find(node->dependencies.begin(), node->dependencies.end(), dependencies[i]) ==
            node->dependencies.end())
            node->dependencies.push_back(dependencies[i]);
    nodes.push_back(std::move(node));
    return nodes.back().get();
}

bool CUgraph_st::owns(const CUgraphNode_st* node) const {
    return std::any_of(nodes.begin(), nodes.end(), [node](const auto& n) { return n.get() == node; });
}

std::unique_ptr<CUgraph_st> CUgraph_st::clone(
    std::vector<std::pair<const CUgraphNode_st*, CUgraphNode_st*>>* map) const {
    auto g = std::make_unique<CUgraph_st>();
    g->conditions = conditions;
    std::map<const CUgraphNode_st*, CUgraphNode_st*> copies;
    for (const auto& n : nodes) {
        CUgraphNode_st* c = g->add(copy_node(*n), nullptr, 0);
        copies[n.get()] = c;
        if (map) map->emplace_back(n.get(), c);
    }
    for (const auto& n : nodes)
        for (const CUgraphNode_st* d : n->dependencies) copies[n.get()]->dependencies.push_back(copies.at(d));
    return g;
}

bool CUgraph_st::topological_order(std::vector<CUgraphNode_st*>& out) const {
    out.clear();
    std::map<const CUgraphNode_st*, size_t> waiting;
    std::map<const CUgraphNode_st*, std::vector<CUgraphNode_st*>> dependents;
    for (const auto& n : nodes) {
        waiting[n.get()] = n->dependencies.size();
        for (const CUgraphNode_st* d : n->dependencies) dependents[d].push_back(n.get());
    }
    for (const auto& n : nodes)
        if (n->dependencies.empty()) out.push_back(n.get());
    for (size_t i = 0; i < out.size(); ++i)
        for (CUgraphNode_st* next : dependents[out[i]])
            if (--waiting[next] == 0) out.push_back(next);
    return out.size() == nodes.size();
}

CUgraphNode_st* CUgraphExec_st::ours(const CUgraphNode_st* original) const {
    for (const auto& [from, to] : from_original)
        if (from == original || to == original) return to;
    return nullptr;
}

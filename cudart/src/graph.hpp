// CUDA graphs: nodes with their dependencies, made by the cudaGraphAdd* calls or captured from
// streams, cloned, and instantiated into an executable graph that a stream replays. A node keeps
// what its operation needs, copied when it was made (a kernel's arguments included, as CUDA
// copies them), so a replay needs nothing from the program but the graph.
//
// Replay runs the nodes in one topological order on the launching stream: every dependency is
// met, and the stream's order makes the whole graph one unit of work on it, as cudaGraphLaunch
// does. (Independent branches do not overlap; on a simulated GPU they would not run faster.)
#pragma once

#include "graph_types.hpp"

#include <cudabridge.h>

#include <memory>
#include <string>
#include <vector>

namespace cudabridge::cudart {

// Device memory a graph's allocation node made: it lives while any graph or executable graph
// made from it does (graph allocations are mapped for the graph's lifetime, not per launch).
struct graph_allocation {
    void* ptr = nullptr;
    size_t bytes = 0;
    // `ptr` was allocated with `size` bytes: counted as graph memory until this is destroyed.
    void hold(size_t size);
    ~graph_allocation();
};

// The device memory graphs hold now and the most they held since the program began or the high
// mark was reset (cudaDeviceGetGraphMemAttribute: graphs keep no memory beyond what they hold, so
// what is reserved is what is used).
struct graph_memory_use {
    unsigned long long current = 0, high = 0;
};
graph_memory_use graph_memory();
void reset_graph_memory_high();

// A conditional node's value (cudaGraphConditionalHandleCreate): four bytes of device memory
// whose address is the handle, so a kernel's cudaGraphSetConditional is a store to it (the PTX
// engine lowers the call so) and the graph reads it when the conditional node's turn comes. It
// lives while any graph or executable graph made from its graph does.
struct graph_condition {
    void* ptr = nullptr;
    unsigned default_value = 0;
    bool assign_default = false;  // cudaGraphCondAssignDefault: set at the start of every run
    ~graph_condition();
};

struct kernel_record;

struct kernel_work {
    kernel_record* kernel = nullptr;
    const void* function = nullptr;  // the kernel's host stub (how the runtime API names it)
    // Or, with `kernel` null, a module's kernel by name (the driver API's, module_kernels.hpp).
    cbModule_t module = nullptr;
    std::string module_kernel;
    dim3 grid{1, 1, 1}, block{1, 1, 1};
    unsigned shared_memory = 0;
    std::vector<std::vector<unsigned char>> arguments;  // one copy per parameter
    std::vector<void*> pointers;                        // into `arguments`, as kernelParams
};

// A launch's arguments copied by the kernel's parameter sizes (the GPU family knows them).
cudaError_t copy_kernel_arguments(kernel_record* kernel, void** params, kernel_work& out);

}  // namespace cudabridge::cudart

struct CUgraph_st;

struct CUgraphNode_st {
    int type = cudaGraphNodeTypeEmpty;
    CUgraph_st* owner = nullptr;
    std::vector<CUgraphNode_st*> dependencies;
    bool enabled = true;

    cudabridge::cudart::kernel_work kernel;
    cudaMemcpy3DParms copy{};  // a 1D copy: srcPtr/dstPtr and extent.width bytes
    cudaMemsetParams memset{};
    cudaHostNodeParams host{};
    cudaEvent_t event = nullptr;
    std::unique_ptr<CUgraph_st> child;
    std::shared_ptr<cudabridge::cudart::graph_allocation> allocation;  // alloc nodes
    void* freed = nullptr;                                             // free nodes

    // Conditional nodes: which kind, the value it reads, and the body graphs. The bodies of a
    // node the program made are live graphs it fills in (phGraph_out); a copy's are private.
    int condition_type = 0;
    std::shared_ptr<cudabridge::cudart::graph_condition> condition;
    std::vector<std::unique_ptr<CUgraph_st>> bodies;
    std::vector<cudaGraph_t> body_handles;  // what phGraph_out points at
    bool bodies_are_live = false;

    CUgraphNode_st() = default;
    CUgraphNode_st(const CUgraphNode_st&) = delete;
    CUgraphNode_st& operator=(const CUgraphNode_st&) = delete;
    ~CUgraphNode_st();
};

struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
    std::vector<std::shared_ptr<cudabridge::cudart::graph_condition>> conditions;  // made on this graph

    CUgraphNode_st* add(std::unique_ptr<CUgraphNode_st> node, const cudaGraphNode_t* dependencies, size_t count);
    bool owns(const CUgraphNode_st* node) const;
    // A deep copy; `map` receives, for every node of this graph, its copy.
    std::unique_ptr<CUgraph_st> clone(
        std::vector<std::pair<const CUgraphNode_st*, CUgraphNode_st*>>* map = nullptr) const;
    // The nodes in an order that puts every node after its dependencies (false: a cycle).
    bool topological_order(std::vector<CUgraphNode_st*>& out) const;
};

struct CUgraphExec_st {
    std::unique_ptr<CUgraph_st> graph;
    std::vector<CUgraphNode_st*> order;
    std::vector<std::pair<const CUgraphNode_st*, CUgraphNode_st*>> from_original;  // the graph's node -> ours

    CUgraphNode_st* ours(const CUgraphNode_st* original) const;
};

namespace cudabridge::cudart {

// A graph handed to the program (cudaGraphCreate, cudaGraphClone, cudaStreamEndCapture): from
// now on the graph calls accept it; whether a handle is one of them.
cudaGraph_t adopt_graph(std::unique_ptr<CUgraph_st> graph);
bool live_graph(const CUgraph_st* graph);
// From now on the graph calls accept `graph`, which stays its owner's (a conditional node's body);
// forget_graph ends that, before the owner deletes it.
void accept_graph(const CUgraph_st* graph);
void forget_graph(const CUgraph_st* graph);
// Adds `node` to a live graph after the given nodes of that graph.
cudaError_t add_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies, size_t count,
                     std::unique_ptr<CUgraphNode_st> node);

// A copy of `node`'s operation and parameters (not its dependencies or owner).
std::unique_ptr<CUgraphNode_st> copy_node(const CUgraphNode_st& node);
// Queues every node of `graph` on `stream`, in order.
cudaError_t replay(const CUgraphExec_st& exec, cudaStream_t stream);

}  // namespace cudabridge::cudart

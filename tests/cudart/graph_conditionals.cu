// Conditional graph nodes (cudaGraphAddNode, cudaGraphConditionalHandleCreate): if, if/else, while
// and switch, with the condition set by kernels (cudaGraphSetConditional) and by the handle's
// default value; a while body captured from a stream; an if nested in a while; the parameters CUDA
// refuses.
#include "expect.cuh"

#include <cuda_runtime.h>

#include <vector>

__global__ void set_condition(cudaGraphConditionalHandle handle, const int* value) {
    cudaGraphSetConditional(handle, *value);
}

__global__ void append(int* log, int mark) { log[++log[0]] = mark; }

// Counts *counter down by one and keeps the loop going while it is positive.
__global__ void count_down(cudaGraphConditionalHandle handle, int* counter, int* log) {
    log[++log[0]] = *counter;
    --*counter;
    cudaGraphSetConditional(handle, *counter > 0);
}

// Sets the inner condition from the counter's parity (the nested if runs for odd values).
__global__ void odd(cudaGraphConditionalHandle handle, const int* counter) {
    cudaGraphSetConditional(handle, *counter % 2);
}

static cudaGraphNode_t kernel_node(cudaGraph_t g, const cudaGraphNode_t* after, size_t n, void* func, void** args) {
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = func;
    p.kernel.gridDim = dim3(1);
    p.kernel.blockDim = dim3(1);
    p.kernel.kernelParams = args;
    cudaGraphNode_t node{};
    EXPECT(cudaGraphAddNode(&node, g, after, nullptr, n, &p) == cudaSuccess);
    return node;
}

static cudaGraphNode_t conditional(cudaGraph_t g, const cudaGraphNode_t* after, size_t n,
                                   cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type, unsigned size,
                                   cudaGraph_t* bodies) {
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = handle;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t node{};
    EXPECT(cudaGraphAddNode(&node, g, after, nullptr, n, &p) == cudaSuccess);
    for (unsigned i = 0; i < size; ++i) bodies[i] = p.conditional.phGraph_out[i];
    return node;
}

static std::vector<int> read_log(const int* log) {
    int h[64] = {};
    EXPECT(cudaMemcpy(h, log, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
    return std::vector<int>(h + 1, h + 1 + h[0]);
}

// A kernel sets the condition from a device value: if/else runs one body, switch the body of
// that number, none past the last.
static void if_else_and_switch_follow_the_kernels_value() {
    int *value = nullptr, *log = nullptr;
    EXPECT(cudaMalloc(&value, sizeof(int)) == cudaSuccess);
    EXPECT(cudaMalloc(&log, 64 * sizeof(int)) == cudaSuccess);
    for (int type : {cudaGraphCondTypeIf, cudaGraphCondTypeSwitch}) {
        cudaGraph_t g{};
        EXPECT(cudaGraphCreate(&g, 0) == cudaSuccess);
        cudaGraphConditionalHandle h{};
        EXPECT(cudaGraphConditionalHandleCreate(&h, g) == cudaSuccess);
        void* set_args[] = {&h, &value};
        cudaGraphNode_t set = kernel_node(g, nullptr, 0, (void*)set_condition, set_args);
        const unsigned size = type == cudaGraphCondTypeIf ? 2 : 3;
        cudaGraph_t bodies[3]{};
        conditional(g, &set, 1, h, static_cast<cudaGraphConditionalNodeType>(type), size, bodies);
        int marks[3] = {10, 11, 12};
        for (unsigned b = 0; b < size; ++b) {
            void* args[] = {&log, &marks[b]};
            kernel_node(bodies[b], nullptr, 0, (void*)append, args);
        }
        cudaGraphExec_t exec{};
        EXPECT(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
        for (int v = 0; v < 4; ++v) {
            EXPECT(cudaMemset(log, 0, 64 * sizeof(int)) == cudaSuccess);
            EXPECT(cudaMemcpy(value, &v, sizeof v, cudaMemcpyHostToDevice) == cudaSuccess);
            EXPECT(cudaGraphLaunch(exec, 0) == cudaSuccess);
            EXPECT(cudaDeviceSynchronize() == cudaSuccess);
            std::vector<int> expected;
            if (type == cudaGraphCondTypeIf) expected = {v ? 10 : 11};
            if (type == cudaGraphCondTypeSwitch && v < 3) expected = {10 + v};
            EXPECT(read_log(log) == expected);
        }
        EXPECT(cudaGraphExecDestroy(exec) == cudaSuccess);
        EXPECT(cudaGraphDestroy(g) == cudaSuccess);
    }
    EXPECT(cudaFree(value) == cudaSuccess);
    EXPECT(cudaFree(log) == cudaSuccess);
}

// A do-while from the handle's default (1 at every launch): the body counts down to zero; an if
// nested in the body runs for the odd values only.
static void a_while_loop_with_a_nested_if_runs_until_the_kernel_clears_it() {
    int *counter = nullptr, *log = nullptr;
    EXPECT(cudaMalloc(&counter, sizeof(int)) == cudaSuccess);
    EXPECT(cudaMalloc(&log, 64 * sizeof(int)) == cudaSuccess);
    cudaGraph_t g{};
    EXPECT(cudaGraphCreate(&g, 0) == cudaSuccess);
    cudaGraphConditionalHandle loop{}, inner{};
    EXPECT(cudaGraphConditionalHandleCreate(&loop, g, 1, cudaGraphCondAssignDefault) == cudaSuccess);
    cudaGraph_t body{}, inner_body{};
    conditional(g, nullptr, 0, loop, cudaGraphCondTypeWhile, 1, &body);
    EXPECT(cudaGraphConditionalHandleCreate(&inner, body) == cudaSuccess);
    void* parity_args[] = {&inner, &counter};
    cudaGraphNode_t parity = kernel_node(body, nullptr, 0, (void*)odd, parity_args);
    cudaGraphNode_t nested = conditional(body, &parity, 1, inner, cudaGraphCondTypeIf, 1, &inner_body);
    int mark = -1;
    void* mark_args[] = {&log, &mark};
    kernel_node(inner_body, nullptr, 0, (void*)append, mark_args);
    void* down_args[] = {&loop, &counter, &log};
    kernel_node(body, &nested, 1, (void*)count_down, down_args);
    cudaGraphExec_t exec{};
    EXPECT(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
    for (int start : {5, 2}) {  // the default sets the loop going again at the second launch
        EXPECT(cudaMemset(log, 0, 64 * sizeof(int)) == cudaSuccess);
        EXPECT(cudaMemcpy(counter, &start, sizeof start, cudaMemcpyHostToDevice) == cudaSuccess);
        EXPECT(cudaGraphLaunch(exec, 0) == cudaSuccess);
        EXPECT(cudaDeviceSynchronize() == cudaSuccess);
        std::vector<int> expected;
        for (int c = start; c > 0; --c) {
            if (c % 2) expected.push_back(-1);
            expected.push_back(c);
        }
        EXPECT(read_log(log) == expected);
    }
    EXPECT(cudaGraphExecDestroy(exec) == cudaSuccess);
    EXPECT(cudaGraphDestroy(g) == cudaSuccess);
    EXPECT(cudaFree(counter) == cudaSuccess);
    EXPECT(cudaFree(log) == cudaSuccess);
}

// A while node added to a graph being captured, its body captured into it from another stream.
static void a_captured_loop_body_runs_as_often_as_the_condition_says() {
    int *counter = nullptr, *log = nullptr;
    EXPECT(cudaMalloc(&counter, sizeof(int)) == cudaSuccess);
    EXPECT(cudaMalloc(&log, 64 * sizeof(int)) == cudaSuccess);
    cudaStream_t s{}, body_stream{};
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);
    EXPECT(cudaStreamCreate(&body_stream) == cudaSuccess);
    EXPECT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    cudaStreamCaptureStatus status{};
    cudaGraph_t g{};
    const cudaGraphNode_t* tips = nullptr;
    size_t tip_count = 0;
    EXPECT(cudaStreamGetCaptureInfo(s, &status, nullptr, &g, &tips, nullptr, &tip_count) == cudaSuccess);
    cudaGraphConditionalHandle h{};
    EXPECT(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault) == cudaSuccess);
    append<<<1, 1, 0, s>>>(log, 100);
    EXPECT(cudaStreamGetCaptureInfo(s, &status, nullptr, &g, &tips, nullptr, &tip_count) == cudaSuccess);
    cudaGraph_t body{};
    cudaGraphNode_t loop = conditional(g, tips, tip_count, h, cudaGraphCondTypeWhile, 1, &body);
    EXPECT(cudaStreamUpdateCaptureDependencies(s, &loop, nullptr, 1, cudaStreamSetCaptureDependencies) == cudaSuccess);
    append<<<1, 1, 0, s>>>(log, 200);
    cudaGraph_t captured{};
    EXPECT(cudaStreamEndCapture(s, &captured) == cudaSuccess);
    EXPECT(captured == g);
    EXPECT(cudaStreamBeginCaptureToGraph(body_stream, body, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal) ==
           cudaSuccess);
    count_down<<<1, 1, 0, body_stream>>>(h, counter, log);
    EXPECT(cudaStreamEndCapture(body_stream, nullptr) == cudaSuccess);
    cudaGraphExec_t exec{};
    EXPECT(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
    const int start = 3;
    EXPECT(cudaMemset(log, 0, 64 * sizeof(int)) == cudaSuccess);
    EXPECT(cudaMemcpy(counter, &start, sizeof start, cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaGraphLaunch(exec, s) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
    EXPECT(read_log(log) == (std::vector<int>{100, 3, 2, 1, 200}));
    EXPECT(cudaGraphExecDestroy(exec) == cudaSuccess);
    EXPECT(cudaGraphDestroy(g) == cudaSuccess);
    EXPECT(cudaStreamDestroy(s) == cudaSuccess);
    EXPECT(cudaStreamDestroy(body_stream) == cudaSuccess);
    EXPECT(cudaFree(counter) == cudaSuccess);
    EXPECT(cudaFree(log) == cudaSuccess);
}

static void what_cuda_refuses() {
    cudaGraph_t g{};
    EXPECT(cudaGraphCreate(&g, 0) == cudaSuccess);
    cudaGraphConditionalHandle h{};
    EXPECT(cudaGraphConditionalHandleCreate(&h, g, 0, 0x80) == cudaErrorInvalidValue);
    EXPECT(cudaGraphConditionalHandleCreate(&h, g) == cudaSuccess);
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 2;  // a while has one body
    cudaGraphNode_t node{};
    EXPECT(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p) == cudaErrorInvalidValue);
    p.conditional.size = 1;
    p.conditional.handle = h + 4;  // not a handle
    EXPECT(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p) == cudaErrorInvalidValue);
    EXPECT(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, nullptr) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    EXPECT(cudaGraphDestroy(g) == cudaSuccess);
}

int main() {
    if_else_and_switch_follow_the_kernels_value();
    a_while_loop_with_a_nested_if_runs_until_the_kernel_clears_it();
    a_captured_loop_body_runs_as_often_as_the_condition_says();
    what_cuda_refuses();
    return verdict("graph_conditionals");
}

// CUDA graphs: a graph with every node kind, replayed 100 times; a multi-stream pipeline captured
// with fork and join, replayed; an executable graph updated in place; what capture refuses.
#include "expect.cuh"

#include <cuda_runtime.h>

#include <vector>

__global__ void add_scaled(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

__global__ void square(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= y[i];
}

struct counter {
    int calls = 0;
};
static void count_call(void* c) { ++static_cast<counter*>(c)->calls; }

// Each replay: y = 0 (memset); x copied in; y += 2 * x (kernel); a child graph squares y; an
// allocation node's scratch gets y (device to device) and is freed; y copied out; a host node counts.
static void every_node_kind_replayed_100_times() {
    const int n = 1000;
    std::vector<float> x(n), y(n, -1.0f);
    for (int i = 0; i < n; ++i) x[i] = 0.25f * (i % 13);
    float *dx = nullptr, *dy = nullptr;
    EXPECT(cudaMalloc(&dx, n * sizeof(float)) == cudaSuccess);
    EXPECT(cudaMalloc(&dy, n * sizeof(float)) == cudaSuccess);
    cudaGraph_t g{}, child{};
    EXPECT(cudaGraphCreate(&g, 0) == cudaSuccess);
    EXPECT(cudaGraphCreate(&child, 0) == cudaSuccess);

    cudaGraphNode_t zero{}, in{}, axpy{}, sq{}, nest{}, alloc{}, to_scratch{}, release{}, out{}, host{}, empty{}, rec{},
        wait{};
    cudaMemsetParams ms{};
    ms.dst = dy;
    ms.value = 0;
    ms.elementSize = 4;
    ms.width = n;
    ms.height = 1;
    EXPECT(cudaGraphAddMemsetNode(&zero, g, nullptr, 0, &ms) == cudaSuccess);
    EXPECT(cudaGraphAddMemcpyNode1D(&in, g, nullptr, 0, dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice) ==
           cudaSuccess);
    float a = 2.0f;
    int count = n;
    void* args[] = {&dy, &dx, &a, &count};
    cudaKernelNodeParams kp{};
    kp.func = reinterpret_cast<void*>(add_scaled);
    kp.gridDim = dim3((n + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaGraphNode_t before_axpy[] = {zero, in};
    EXPECT(cudaGraphAddKernelNode(&axpy, g, before_axpy, 2, &kp) == cudaSuccess);
    a = 100.0f;  // the node copied the arguments when it was made
    void* sq_args[] = {&dy, &count};
    cudaKernelNodeParams sp{};
    sp.func = reinterpret_cast<void*>(square);
    sp.gridDim = dim3((n + 127) / 128);
    sp.blockDim = dim3(128);
    sp.kernelParams = sq_args;
    EXPECT(cudaGraphAddKernelNode(&sq, child, nullptr, 0, &sp) == cudaSuccess);
    EXPECT(cudaGraphAddChildGraphNode(&nest, g, &axpy, 1, child) == cudaSuccess);
    cudaMemAllocNodeParams ap{};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = n * sizeof(float);
    EXPECT(cudaGraphAddMemAllocNode(&alloc, g, &nest, 1, &ap) == cudaSuccess);
    EXPECT(ap.dptr != nullptr);
    EXPECT(cudaGraphAddMemcpyNode1D(&to_scratch, g, &alloc, 1, ap.dptr, dy, n * sizeof(float),
                                    cudaMemcpyDeviceToDevice) == cudaSuccess);
    EXPECT(cudaGraphAddMemcpyNode1D(&out, g, &to_scratch, 1, y.data(), ap.dptr, n * sizeof(float),
                                    cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(cudaGraphAddMemFreeNode(&release, g, &out, 1, ap.dptr) == cudaSuccess);
    counter calls;
    cudaHostNodeParams hp{count_call, &calls};
    EXPECT(cudaGraphAddHostNode(&host, g, &release, 1, &hp) == cudaSuccess);
    cudaEvent_t done{};
    EXPECT(cudaEventCreate(&done) == cudaSuccess);
    EXPECT(cudaGraphAddEventRecordNode(&rec, g, &host, 1, done) == cudaSuccess);
    EXPECT(cudaGraphAddEventWaitNode(&wait, g, &rec, 1, done) == cudaSuccess);
    EXPECT(cudaGraphAddEmptyNode(&empty, g, &wait, 1) == cudaSuccess);

    size_t nodes = 0, roots = 0, edges = 0;
    EXPECT(cudaGraphGetNodes(g, nullptr, &nodes) == cudaSuccess && nodes == 12);  // the child's node is its own
    EXPECT(cudaGraphGetRootNodes(g, nullptr, &roots) == cudaSuccess && roots == 2);
    EXPECT(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges) == cudaSuccess && edges == 11);
    cudaGraphNodeType type{};
    EXPECT(cudaGraphNodeGetType(nest, &type) == cudaSuccess && type == cudaGraphNodeTypeGraph);

    cudaGraphExec_t exec{};
    EXPECT(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
    cudaStream_t s{};
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);
    for (int r = 0; r < 100; ++r) EXPECT(cudaGraphLaunch(exec, s) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
    EXPECT(calls.calls == 100);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += y[i] != (2.0f * x[i]) * (2.0f * x[i]);
    EXPECT(wrong == 0);

    // A clone is independent of its original; the executable graph copied the graph.
    cudaGraph_t copy{};
    EXPECT(cudaGraphClone(&copy, g) == cudaSuccess);
    EXPECT(cudaGraphDestroy(g) == cudaSuccess);
    EXPECT(cudaGraphLaunch(exec, s) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess && calls.calls == 101);
    EXPECT(cudaGraphExecDestroy(exec) == cudaSuccess);
    EXPECT(cudaGraphDestroy(copy) == cudaSuccess);
    EXPECT(cudaGraphDestroy(child) == cudaSuccess);
    EXPECT(cudaGraphDestroy(g) == cudaErrorInvalidValue);  // destroyed already: an error, not a crash
    (void)cudaGetLastError();
    EXPECT(cudaEventDestroy(done) == cudaSuccess);
    EXPECT(cudaStreamDestroy(s) == cudaSuccess);
    EXPECT(cudaFree(dx) == cudaSuccess && cudaFree(dy) == cudaSuccess);
}

// Stream 1 copies in and forks to stream 2 through an event; each scales its half; stream 1
// joins stream 2 and copies out. Captured once, replayed with new input each time.
static void a_captured_pipeline_replays_with_fork_and_join() {
    const int n = 4096, half = n / 2;
    float* host = nullptr;
    EXPECT(cudaMallocHost(&host, n * sizeof(float)) == cudaSuccess);
    float *d = nullptr, *ones = nullptr;
    EXPECT(cudaMalloc(&d, n * sizeof(float)) == cudaSuccess);
    EXPECT(cudaMalloc(&ones, n * sizeof(float)) == cudaSuccess);
    std::vector<float> one(n, 1.0f);
    EXPECT(cudaMemcpy(ones, one.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cudaStream_t s1{}, s2{};
    cudaEvent_t fork{}, join{};
    EXPECT(cudaStreamCreate(&s1) == cudaSuccess && cudaStreamCreate(&s2) == cudaSuccess);
    EXPECT(cudaEventCreate(&fork) == cudaSuccess && cudaEventCreate(&join) == cudaSuccess);

    EXPECT(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
    cudaStreamCaptureStatus status{};
    EXPECT(cudaStreamIsCapturing(s1, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive);
    EXPECT(cudaStreamIsCapturing(s2, &status) == cudaSuccess && status == cudaStreamCaptureStatusNone);
    EXPECT(cudaMemcpyAsync(d, host, n * sizeof(float), cudaMemcpyHostToDevice, s1) == cudaSuccess);
    EXPECT(cudaEventRecord(fork, s1) == cudaSuccess);
    EXPECT(cudaStreamWaitEvent(s2, fork, 0) == cudaSuccess);
    EXPECT(cudaStreamIsCapturing(s2, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive);
    add_scaled<<<half / 256, 256, 0, s1>>>(d, ones, 10.0f, half);
    add_scaled<<<half / 256, 256, 0, s2>>>(d + half, ones, 20.0f, half);
    EXPECT(cudaEventRecord(join, s2) == cudaSuccess);
    EXPECT(cudaStreamWaitEvent(s1, join, 0) == cudaSuccess);
    EXPECT(cudaMemcpyAsync(host, d, n * sizeof(float), cudaMemcpyDeviceToHost, s1) == cudaSuccess);
    cudaGraph_t g{};
    EXPECT(cudaStreamEndCapture(s1, &g) == cudaSuccess && g != nullptr);
    EXPECT(cudaStreamIsCapturing(s2, &status) == cudaSuccess && status == cudaStreamCaptureStatusNone);
    size_t nodes = 0;
    EXPECT(cudaGraphGetNodes(g, nullptr, &nodes) == cudaSuccess && nodes == 4);

    cudaGraphExec_t exec{};
    EXPECT(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
    for (int round = 0; round < 5; ++round) {
        for (int i = 0; i < n; ++i) host[i] = float(i + round);
        EXPECT(cudaGraphLaunch(exec, s1) == cudaSuccess);
        EXPECT(cudaStreamSynchronize(s1) == cudaSuccess);
        int wrong = 0;
        for (int i = 0; i < n; ++i) wrong += host[i] != float(i + round) + (i < half ? 10.0f : 20.0f);
        EXPECT(wrong == 0);
    }

    // Whole-graph update: the same topology with new arguments.
    EXPECT(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
    EXPECT(cudaMemcpyAsync(d, host, n * sizeof(float), cudaMemcpyHostToDevice, s1) == cudaSuccess);
    EXPECT(cudaEventRecord(fork, s1) == cudaSuccess);
    EXPECT(cudaStreamWaitEvent(s2, fork, 0) == cudaSuccess);
    add_scaled<<<half / 256, 256, 0, s1>>>(d, ones, -1.0f, half);
    add_scaled<<<half / 256, 256, 0, s2>>>(d + half, ones, -2.0f, half);
    EXPECT(cudaEventRecord(join, s2) == cudaSuccess);
    EXPECT(cudaStreamWaitEvent(s1, join, 0) == cudaSuccess);
    EXPECT(cudaMemcpyAsync(host, d, n * sizeof(float), cudaMemcpyDeviceToHost, s1) == cudaSuccess);
    cudaGraph_t g2{};
    EXPECT(cudaStreamEndCapture(s1, &g2) == cudaSuccess);
    cudaGraphExecUpdateResultInfo info{};
    EXPECT(cudaGraphExecUpdate(exec, g2, &info) == cudaSuccess && info.result == cudaGraphExecUpdateSuccess);
    for (int i = 0; i < n; ++i) host[i] = 5.0f;
    EXPECT(cudaGraphLaunch(exec, s1) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s1) == cudaSuccess);
    EXPECT(host[0] == 4.0f && host[n - 1] == 3.0f);

    // What cannot be captured invalidates the capture, and the error says so.
    EXPECT(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s1) == cudaErrorStreamCaptureUnsupported);
    cudaGraph_t none{};
    EXPECT(cudaStreamEndCapture(s1, &none) == cudaErrorStreamCaptureInvalidated && none == nullptr);
    EXPECT(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported);
    (void)cudaGetLastError();

    EXPECT(cudaGraphExecDestroy(exec) == cudaSuccess);
    EXPECT(cudaGraphDestroy(g) == cudaSuccess && cudaGraphDestroy(g2) == cudaSuccess);
    EXPECT(cudaStreamDestroy(s1) == cudaSuccess && cudaStreamDestroy(s2) == cudaSuccess);
    EXPECT(cudaEventDestroy(fork) == cudaSuccess && cudaEventDestroy(join) == cudaSuccess);
    EXPECT(cudaFree(d) == cudaSuccess && cudaFree(ones) == cudaSuccess);
    EXPECT(cudaFreeHost(host) == cudaSuccess);
}

// cudaMallocAsync / cudaFreeAsync captured become allocation and free nodes.
static void stream_ordered_allocation_is_captured() {
    const int n = 512;
    cudaStream_t s{};
    EXPECT(cudaStreamCreate(&s) == cudaSuccess);
    std::vector<float> x(n, 3.0f), y(n, 0.0f);
    EXPECT(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    float* scratch = nullptr;
    EXPECT(cudaMallocAsync(&scratch, n * sizeof(float), s) == cudaSuccess && scratch != nullptr);
    EXPECT(cudaMemcpyAsync(scratch, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, s) == cudaSuccess);
    square<<<(n + 127) / 128, 128, 0, s>>>(scratch, n);
    EXPECT(cudaMemcpyAsync(y.data(), scratch, n * sizeof(float), cudaMemcpyDeviceToHost, s) == cudaSuccess);
    EXPECT(cudaFreeAsync(scratch, s) == cudaSuccess);
    cudaGraph_t g{};
    EXPECT(cudaStreamEndCapture(s, &g) == cudaSuccess);
    cudaGraphExec_t exec{};
    EXPECT(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
    for (int r = 0; r < 3; ++r) EXPECT(cudaGraphLaunch(exec, s) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
    EXPECT(y[0] == 9.0f && y[n - 1] == 9.0f);
    // Freed outside the graph (as CUDA allows), the memory is there again at the next launch.
    EXPECT(cudaFree(scratch) == cudaSuccess);
    y.assign(n, 0.0f);
    EXPECT(cudaGraphLaunch(exec, s) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(s) == cudaSuccess);
    EXPECT(y[0] == 9.0f && y[n - 1] == 9.0f);
    EXPECT(cudaGraphExecDestroy(exec) == cudaSuccess && cudaGraphDestroy(g) == cudaSuccess);
    EXPECT(cudaStreamDestroy(s) == cudaSuccess);
}

// Graph memory is counted while a graph holds it: used and reserved grow by an allocation node's
// size and shrink when the last graph made from it goes; the high mark stays until reset.
static void graph_memory_is_counted() {
    const size_t bytes = size_t(3) << 20;
    auto attribute = [](int which) {
        unsigned long long v = ~0ull;
        EXPECT(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttributeType(which), &v) == cudaSuccess);
        return v;
    };
    const unsigned long long before = attribute(cudaGraphMemAttrUsedMemCurrent);
    cudaGraph_t g{};
    EXPECT(cudaGraphCreate(&g, 0) == cudaSuccess);
    cudaMemAllocNodeParams ap{};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.bytesize = bytes;
    cudaGraphNode_t alloc{};
    EXPECT(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap) == cudaSuccess);
    EXPECT(attribute(cudaGraphMemAttrUsedMemCurrent) == before + bytes);
    EXPECT(attribute(cudaGraphMemAttrReservedMemCurrent) == before + bytes);
    EXPECT(attribute(cudaGraphMemAttrUsedMemHigh) >= before + bytes);
    EXPECT(cudaGraphDestroy(g) == cudaSuccess);
    EXPECT(attribute(cudaGraphMemAttrUsedMemCurrent) == before);
    EXPECT(attribute(cudaGraphMemAttrReservedMemHigh) >= before + bytes);
    unsigned long long zero = 0, one = 1;
    EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero) == cudaSuccess);
    EXPECT(attribute(cudaGraphMemAttrUsedMemHigh) == before);
    EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one) == cudaErrorInvalidValue);
    EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

int main() {
    every_node_kind_replayed_100_times();
    a_captured_pipeline_replays_with_fork_and_join();
    stream_ordered_allocation_is_captured();
    graph_memory_is_counted();
    return verdict("graphs");
}

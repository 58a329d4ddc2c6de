// libcudart.so.12's forms of the entry points whose ABI differs from CUDA 13's (CUDA 12.x
// cuda_runtime_api.h and driver_types.h): cudaGetDeviceProperties (and _v2, which CUDA 12's header
// maps it to) fill CUDA 12's cudaDeviceProp; cudaMemPrefetchAsync and cudaMemAdvise take a device
// ordinal (cudaCpuDeviceId, -1, for the host), and their _v2 forms take CUDA 13's cudaMemLocation.
#include "device_limits.hpp"
#include "handles.hpp"
#include "versioned_api.hpp"

#include <cstring>

using namespace cudabridge::cudart;

// CUDA 12's graph and capture calls without edge data, and their _v2 / _v3 forms with it.
extern "C" {

cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t* from, const cudaGraphNode_t* to, size_t n) {
    return add_dependencies(g, from, to, nullptr, n);
}
cudaError_t cudaGraphAddDependencies_v2(cudaGraph_t g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edges, size_t n) {
    return add_dependencies(g, from, to, edges, n);
}
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                        size_t n) {
    return remove_dependencies(g, from, to, nullptr, n);
}
cudaError_t cudaGraphRemoveDependencies_v2(cudaGraph_t g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                           const cudaGraphEdgeData* edges, size_t n) {
    return remove_dependencies(g, from, to, edges, n);
}
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t* from, cudaGraphNode_t* to, size_t* n) {
    return graph_edges(g, from, to, nullptr, n);
}
cudaError_t cudaGraphGetEdges_v2(cudaGraph_t g, cudaGraphNode_t* from, cudaGraphNode_t* to, cudaGraphEdgeData* edges,
                                 size_t* n) {
    return graph_edges(g, from, to, edges, n);
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* out, size_t* n) {
    return node_dependencies(node, out, nullptr, n);
}
cudaError_t cudaGraphNodeGetDependencies_v2(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges,
                                            size_t* n) {
    return node_dependencies(node, out, edges, n);
}
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* out, size_t* n) {
    return node_dependents(node, out, nullptr, n);
}
cudaError_t cudaGraphNodeGetDependentNodes_v2(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges,
                                              size_t* n) {
    return node_dependents(node, out, edges, n);
}
cudaError_t cudaGraphAddNode(cudaGraphNode_t* out, cudaGraph_t g, const cudaGraphNode_t* deps, size_t n,
                             cudaGraphNodeParams* params) {
    return add_node_from_params(out, g, deps, nullptr, n, params);
}
cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t* out, cudaGraph_t g, const cudaGraphNode_t* deps,
                                const cudaGraphEdgeData* edges, size_t n, cudaGraphNodeParams* params) {
    return add_node_from_params(out, g, deps, edges, n, params);
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int* status, unsigned long long* id) {
    return capture_info(s, status, id, nullptr, nullptr, nullptr, nullptr);
}
cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t s, int* status, unsigned long long* id, cudaGraph_t* graph,
                                        const cudaGraphNode_t** deps, size_t* n) {
    return capture_info(s, status, id, graph, deps, nullptr, n);
}
cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t s, int* status, unsigned long long* id, cudaGraph_t* graph,
                                        const cudaGraphNode_t** deps, const cudaGraphEdgeData** edges, size_t* n) {
    return capture_info(s, status, id, graph, deps, edges, n);
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t s, int* status, unsigned long long* id) {
    return capture_info(per_thread_if_null(s), status, id, nullptr, nullptr, nullptr, nullptr);
}
cudaError_t cudaStreamGetCaptureInfo_v2_ptsz(cudaStream_t s, int* status, unsigned long long* id, cudaGraph_t* graph,
                                             const cudaGraphNode_t** deps, size_t* n) {
    return capture_info(per_thread_if_null(s), status, id, graph, deps, nullptr, n);
}
cudaError_t cudaStreamGetCaptureInfo_v3_ptsz(cudaStream_t s, int* status, unsigned long long* id, cudaGraph_t* graph,
                                             const cudaGraphNode_t** deps, const cudaGraphEdgeData** edges, size_t* n) {
    return capture_info(per_thread_if_null(s), status, id, graph, deps, edges, n);
}
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t* deps, size_t n, unsigned flags) {
    return update_capture_dependencies(s, deps, nullptr, n, flags);
}
cudaError_t cudaStreamUpdateCaptureDependencies_v2(cudaStream_t s, cudaGraphNode_t* deps,
                                                   const cudaGraphEdgeData* edges, size_t n, unsigned flags) {
    return update_capture_dependencies(s, deps, edges, n, flags);
}
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t s, cudaGraphNode_t* deps, size_t n, unsigned flags) {
    return update_capture_dependencies(per_thread_if_null(s), deps, nullptr, n, flags);
}
cudaError_t cudaStreamUpdateCaptureDependencies_v2_ptsz(cudaStream_t s, cudaGraphNode_t* deps,
                                                        const cudaGraphEdgeData* edges, size_t n, unsigned flags) {
    return update_capture_dependencies(per_thread_if_null(s), deps, edges, n, flags);
}

}  // extern "C"

namespace {

constexpr int cpu_device_id = -1;  // cudaCpuDeviceId

cudaMemLocation location_of(int device) {
    if (device == cpu_device_id) return {cudaMemLocationTypeHost, 0};
    return {cudaMemLocationTypeDevice, device};
}

// CUDA 13's struct, field by field, into CUDA 12's; the fields CUDA 13 removed from the runtime's
// profile (clock rates) or as CUDA reports them on such a device.
cudaError_t properties_12(cudaDeviceProp12* out, int device) {
    if (!out) return get_properties(nullptr, device);
    cudaDeviceProp c{};
    if (cudaError_t e = get_properties(&c, device); e != cudaSuccess) return e;
    cbDeviceProp p{};
    if (cudaError_t e = device_properties(device, p); e != cudaSuccess) return e;
    cudaDeviceProp12 o{};
#define CB_COPY(field) std::memcpy(&o.field, &c.field, sizeof o.field)
    CB_COPY(name), CB_COPY(uuid), CB_COPY(luid), CB_COPY(luidDeviceNodeMask), CB_COPY(totalGlobalMem);
    CB_COPY(sharedMemPerBlock), CB_COPY(regsPerBlock), CB_COPY(warpSize), CB_COPY(memPitch);
    CB_COPY(maxThreadsPerBlock), CB_COPY(maxThreadsDim), CB_COPY(maxGridSize), CB_COPY(totalConstMem);
    CB_COPY(major), CB_COPY(minor), CB_COPY(textureAlignment), CB_COPY(texturePitchAlignment);
    CB_COPY(multiProcessorCount), CB_COPY(integrated), CB_COPY(canMapHostMemory), CB_COPY(maxTexture1D);
    CB_COPY(maxTexture1DMipmap), CB_COPY(maxTexture2D), CB_COPY(maxTexture2DMipmap), CB_COPY(maxTexture2DLinear);
    CB_COPY(maxTexture2DGather), CB_COPY(maxTexture3D), CB_COPY(maxTexture3DAlt), CB_COPY(maxTextureCubemap);
    CB_COPY(maxTexture1DLayered), CB_COPY(maxTexture2DLayered), CB_COPY(maxTextureCubemapLayered);
    CB_COPY(maxSurface1D), CB_COPY(maxSurface2D), CB_COPY(maxSurface3D), CB_COPY(maxSurface1DLayered);
    CB_COPY(maxSurface2DLayered), CB_COPY(maxSurfaceCubemap), CB_COPY(maxSurfaceCubemapLayered);
    CB_COPY(surfaceAlignment), CB_COPY(concurrentKernels), CB_COPY(ECCEnabled), CB_COPY(pciBusID);
    CB_COPY(pciDeviceID), CB_COPY(pciDomainID), CB_COPY(tccDriver), CB_COPY(asyncEngineCount);
    CB_COPY(unifiedAddressing), CB_COPY(memoryBusWidth), CB_COPY(l2CacheSize), CB_COPY(persistingL2CacheMaxSize);
    CB_COPY(maxThreadsPerMultiProcessor), CB_COPY(streamPrioritiesSupported), CB_COPY(globalL1CacheSupported);
    CB_COPY(localL1CacheSupported), CB_COPY(sharedMemPerMultiprocessor), CB_COPY(regsPerMultiprocessor);
    CB_COPY(managedMemory), CB_COPY(isMultiGpuBoard), CB_COPY(multiGpuBoardGroupID);
    CB_COPY(hostNativeAtomicSupported), CB_COPY(pageableMemoryAccess), CB_COPY(concurrentManagedAccess);
    CB_COPY(computePreemptionSupported), CB_COPY(canUseHostPointerForRegisteredMem), CB_COPY(cooperativeLaunch);
    CB_COPY(sharedMemPerBlockOptin), CB_COPY(pageableMemoryAccessUsesHostPageTables);
    CB_COPY(directManagedMemAccessFromHost), CB_COPY(maxBlocksPerMultiProcessor);
    CB_COPY(accessPolicyMaxWindowSize), CB_COPY(reservedSharedMemPerBlock), CB_COPY(hostRegisterSupported);
    CB_COPY(sparseCudaArraySupported), CB_COPY(hostRegisterReadOnlySupported);
    CB_COPY(timelineSemaphoreInteropSupported), CB_COPY(memoryPoolsSupported), CB_COPY(gpuDirectRDMASupported);
    CB_COPY(gpuDirectRDMAFlushWritesOptions), CB_COPY(gpuDirectRDMAWritesOrdering);
    CB_COPY(memoryPoolSupportedHandleTypes), CB_COPY(deferredMappingCudaArraySupported);
    CB_COPY(ipcEventSupported), CB_COPY(clusterLaunch), CB_COPY(unifiedFunctionPointers);
    CB_COPY(deviceNumaConfig), CB_COPY(deviceNumaId), CB_COPY(mpsEnabled), CB_COPY(hostNumaId);
    CB_COPY(gpuPciDeviceID), CB_COPY(gpuPciSubsystemID), CB_COPY(hostNumaMultinodeIpcSupported);
#undef CB_COPY
    o.clockRate = p.clockRate;
    o.memoryClockRate = p.memoryClockRate;
    o.deviceOverlap = c.asyncEngineCount > 0 ? 1 : 0;
    o.kernelExecTimeoutEnabled = 0;
    o.computeMode = 0;                       // cudaComputeModeDefault
    o.maxTexture1DLinear = 1 << 27;          // CUDA's figure for every compute capability since 3.0
    o.singleToDoublePrecisionPerfRatio = 0;  // not in the profile
    o.cooperativeMultiDeviceLaunch = 0;      // deprecated in CUDA 12, not offered
    *out = o;
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp12* prop, int device) { return properties_12(prop, device); }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp12* prop, int device) { return properties_12(prop, device); }

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device, cudaStream_t stream) {
    return prefetch(ptr, count, location_of(device), 0, stream);
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void* ptr, size_t count, int device, cudaStream_t s) {
    return prefetch(ptr, count, location_of(device), 0, per_thread_if_null(s));
}
cudaError_t cudaMemPrefetchAsync_v2(const void* ptr, size_t count, cudaMemLocation location, unsigned flags,
                                    cudaStream_t stream) {
    return prefetch(ptr, count, location, flags, stream);
}
cudaError_t cudaMemPrefetchAsync_v2_ptsz(const void* ptr, size_t count, cudaMemLocation location, unsigned flags,
                                         cudaStream_t s) {
    return prefetch(ptr, count, location, flags, per_thread_if_null(s));
}

cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice, int device) {
    return advise(ptr, count, advice, location_of(device));
}
cudaError_t cudaMemAdvise_v2(const void* ptr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location) {
    return advise(ptr, count, advice, location);
}

}  // extern "C"

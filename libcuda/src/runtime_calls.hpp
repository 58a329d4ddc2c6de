// The CUDA runtime entry points (CudaBridge's libcudart.so.13, cudart/) the driver API's functions
// are adapters over, so that both APIs share one device model.
#pragma once

#include "cuda_types.hpp"
#include "graph_types.hpp"
#include "texture_types.hpp"

#include <cstddef>

extern "C" {
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceGetAttribute(int* value, int attribute, int device);
cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device);
cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id);
cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceGetLimit(size_t* value, int limit);
cudaError_t cudaDeviceSetLimit(int limit, size_t value);

cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned flags);
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned flags);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned flags);
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned flags);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned* flags);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, void (*fn)(void*), void* data);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t* handle, void* devPtr);
cudaError_t cudaIpcOpenMemHandle(void** devPtr, cudaIpcMemHandle_t handle, unsigned flags);
cudaError_t cudaIpcCloseMemHandle(void* devPtr);
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t* handle, cudaEvent_t event);
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t* event, cudaIpcEventHandle_t handle);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned flags);
cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent, unsigned flags);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned* flags, cudaArray_t array);
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                       size_t h_offset, size_t width, size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t w_dst, size_t h_dst, cudaArray_const_t src, size_t w_src,
                                     size_t h_src, size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* texture, const cudaResourceViewDesc* view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* object, const cudaResourceDesc* resource);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object);
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                  size_t count);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                 size_t count, const cudaHostNodeParams* params);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned flags);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, const cudaMemcpy3DParms* params);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, const cudaMemsetParams* params);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                       size_t count, cudaGraph_t child);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                        size_t count, cudaEvent_t event);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                      size_t count, cudaEvent_t event);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                     size_t count, cudaMemAllocNodeParams* params);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                    size_t count, void* ptr);
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* params);
cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* params);
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* params);
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* params);
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* params);
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* params);
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params);
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* ptr);
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph);
cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event);
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event);
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* params);
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemsetParams* params);
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* params);
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraph_t child);
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long* flags);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo* info);
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* params);
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, int* type);
cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* found, cudaGraphNode_t original, cudaGraph_t clone);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
// CUDA 13's forms, with edge data (libcudart.so.13 exports no other).
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t* from, cudaGraphNode_t* to, cudaGraphEdgeData* edges,
                              size_t* n);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges,
                                         size_t* n);
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* out, cudaGraphEdgeData* edges,
                                           size_t* n);
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                     const cudaGraphEdgeData* edges, size_t n);
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edges, size_t n);
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned enabled);
cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned* enabled);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, int* status);
cudaError_t cudaHostGetFlags(unsigned* flags, void* host);
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream);
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream);
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t count,
                                   cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset, size_t count,
                                     cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t w_dst, size_t h_dst, cudaArray_const_t src, size_t w_src,
                                   size_t h_src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t count,
                                cudaStream_t stream);
cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, int attribute, void* value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, int attribute, void* value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, void (*callback)(cudaStream_t, cudaError_t, void*), void* data,
                                  unsigned flags);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length, unsigned flags);
cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned flags);
cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id);
}

// The CUDA runtime's graph and stream-capture ABI (driver_types.h, CUDA 13): handles, node
// parameters and enum values, declared here so the library builds without a CUDA toolkit.
#pragma once

#include "cuda_types.hpp"

extern "C" {

typedef struct CUgraph_st* cudaGraph_t;
typedef struct CUgraphNode_st* cudaGraphNode_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;
typedef void (*cudaHostFn_t)(void* user_data);

enum : int {
    cudaErrorIllegalState = 401,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureUnmatched = 903,
    cudaErrorStreamCaptureUnjoined = 904,
    cudaErrorStreamCaptureIsolation = 905,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorCapturedEvent = 907,
    cudaErrorStreamCaptureWrongThread = 908,
    cudaErrorGraphExecUpdateFailure = 910,
};

enum : int {
    cudaGraphNodeTypeKernel = 0,
    cudaGraphNodeTypeMemcpy = 1,
    cudaGraphNodeTypeMemset = 2,
    cudaGraphNodeTypeHost = 3,
    cudaGraphNodeTypeGraph = 4,
    cudaGraphNodeTypeEmpty = 5,
    cudaGraphNodeTypeWaitEvent = 6,
    cudaGraphNodeTypeEventRecord = 7,
    cudaGraphNodeTypeMemAlloc = 10,
    cudaGraphNodeTypeMemFree = 11,
    cudaGraphNodeTypeConditional = 13,
};

typedef unsigned long long cudaGraphConditionalHandle;
enum : int { cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1, cudaGraphCondTypeSwitch = 2 };
enum : unsigned { cudaGraphCondAssignDefault = 1 };
enum : int { cudaGraphChildGraphOwnershipClone = 0, cudaGraphChildGraphOwnershipMove = 1 };

enum : int {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};
enum : int { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1, cudaStreamCaptureModeRelaxed = 2 };
enum : int {
    cudaGraphExecUpdateSuccess = 0,
    cudaGraphExecUpdateError = 1,
    cudaGraphExecUpdateErrorTopologyChanged = 2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 3,
};

struct cudaKernelNodeParams {
    void* func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void** kernelParams;
    void** extra;
};
struct cudaMemsetParams {
    void* dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
};
struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void* userData;
};
struct cudaMemAllocNodeParams {
    cudaMemPoolProps poolProps;
    const cudaMemAccessDesc* accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void* dptr;
};
struct cudaGraphEdgeData {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
};
struct cudaGraphExecUpdateResultInfo {
    int result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
};
struct cudaGraphInstantiateParams {
    unsigned long long flags;
    cudaStream_t uploadStream;
    cudaGraphNode_t errNode_out;
    int result_out;
};

struct cudaMemcpyNodeParams {
    int flags;
    int reserved[3];
    cudaMemcpy3DParms copyParams;
};
struct cudaChildGraphNodeParams {
    cudaGraph_t graph;
    int ownership;
};
struct cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    int type;
    unsigned int size;
    cudaGraph_t* phGraph_out;  // the body graphs, which the runtime owns
};
// cudaGraphAddNode's parameters: the node's type, then its kind's parameters (the V2 structs of
// CUDA 13 have the layouts of the first ones).
struct cudaGraphNodeParams {
    int type;
    int reserved0[3];
    union {
        long long reserved1[29];
        cudaKernelNodeParams kernel;
        cudaMemcpyNodeParams memcpy;
        cudaMemsetParams memset;
        cudaHostNodeParams host;
        cudaChildGraphNodeParams graph;
        cudaEvent_t eventWait;    // cudaEventWaitNodeParams: its one member
        cudaEvent_t eventRecord;  // cudaEventRecordNodeParams: its one member
        cudaMemAllocNodeParams alloc;
        void* free;  // cudaMemFreeNodeParams: its one member
        cudaConditionalNodeParams conditional;
    };
    long long reserved2;
};

static_assert(sizeof(cudaKernelNodeParams) == 56);
static_assert(sizeof(cudaGraphNodeParams) == 256);
static_assert(sizeof(cudaConditionalNodeParams) == 24);
static_assert(sizeof(cudaMemsetParams) == 40);
static_assert(sizeof(cudaMemAllocNodeParams) == 120);

}  // extern "C"

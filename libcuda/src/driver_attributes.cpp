#include "driver_attributes.hpp"

namespace cudabridge::libcuda {

// CUdevice_attribute (CUDA 13, cuda.h) numbers with no cudaDeviceAttr. Each answer is what this
// library offers: 2D texture gather (tex2Dgather) and virtual memory management (cuMemCreate,
// cuMemMap: virtual_memory.cpp) are; none of the functions the others announce (stream memory
// operations, multi-device cooperative launches, exportable handles, compression, multicast,
// tensor maps) is implemented, so they read 0.
bool driver_only_attribute(int attribute, int& value) {
    switch (attribute) {
    case 44:   // CAN_TEX2D_GATHER
    case 102:  // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (cuMemCreate, cuMemMap)
        value = 1;
        return true;
    case 92:
    case 93:
    case 94:  // stream memory operations (v1)
    case 96:  // COOPERATIVE_MULTI_DEVICE_LAUNCH
    case 103:
    case 104:
    case 105:  // exportable handles: POSIX fd, Win32, Win32 KMT
    case 107:  // GENERIC_COMPRESSION_SUPPORTED
    case 110:  // GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED
    case 122:
    case 123:  // stream memory operations
    case 124:  // DMA_BUF_SUPPORTED
    case 127:  // TENSOR_MAP_ACCESS_SUPPORTED
    case 128:  // HANDLE_TYPE_FABRIC_SUPPORTED
    case 129:  // UNIFIED_FUNCTION_POINTERS
    case 132:  // MULTICAST_SUPPORTED
    case 136:
    case 137:  // memory decompression
    case 141:
    case 145:  // host virtual memory management
    case 146:  // HOST_ALLOC_DMA_BUF_SUPPORTED
        value = 0;
        return true;
    default:
        return false;
    }
}

}  // namespace cudabridge::libcuda

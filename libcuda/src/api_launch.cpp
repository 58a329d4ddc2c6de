// Kernel launches and what a program asks about a kernel.
#include "contexts.hpp"
#include "device_limits.hpp"
#include "modules.hpp"
#include "launches.hpp"
#include "results.hpp"
#include "module_kernels.hpp"

#include <algorithm>
#include <vector>

using namespace cudabridge::libcuda;
using cudabridge::cudart::device_limits;

namespace {

// cuLaunchKernel's `extra` form: one packed buffer. The launch wants a pointer per parameter,
// found at the parameter offsets the module's kernel declares.
CUresult pointers_into_buffer(CUfunction f, void** extra, std::vector<void*>& out) {
    char* buffer = nullptr;
    const size_t* size = nullptr;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buffer = static_cast<char*>(extra[i + 1]);
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = static_cast<const size_t*>(extra[i + 1]);
        else
            return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: unknown entry in `extra`");
    }
    if (!buffer || !size) return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: `extra` lacks the buffer or its size");
    for (size_t index = 0;; ++index) {
        size_t offset = 0, bytes = 0;
        if (cbModuleGetParamInfo(f->module->module, f->name.c_str(), index, &offset, &bytes) != cbSuccess) break;
        if (offset + bytes > *size)
            return fail(CUDA_ERROR_INVALID_VALUE,
                        "cuLaunchKernel: the `extra` buffer is shorter than " + f->name + "'s parameters");
        out.push_back(buffer + offset);
    }
    (void)cbGetLastError();  // the loop ends on "no such parameter"
    return CUDA_SUCCESS;
}

}  // namespace

CUresult cudabridge::libcuda::launch(CUfunction f, cbDim3 grid, cbDim3 block, unsigned shared, CUstream stream,
                                     void** params, void** extra, bool cooperative) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuLaunchKernel: no such function");
    device_limits limits;
    if (cudaError_t e = cudabridge::cudart::current_device_limits(limits); e != cudaSuccess) return from_runtime(e);
    if (cudabridge::cudart::check_launch_configuration(limits, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z},
                                                       shared) != cudaSuccess)
        return fail(CUDA_ERROR_INVALID_VALUE,
                    "launch of " + f->name + ": grid, block or shared memory beyond the device's limits");
    if (cooperative)
        if (const std::string why = cudabridge::cudart::cooperative_grid_too_large(
                limits, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared, f->name);
            !why.empty())
            return fail(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, why);
    std::vector<void*> pointers;
    if (!params && extra) {
        if (CUresult r = pointers_into_buffer(f, extra, pointers); r != CUDA_SUCCESS) return r;
        params = pointers.data();
    }
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const dim3 g{grid.x, grid.y, grid.z}, b{block.x, block.y, block.z};
    if (cudaError_t result = cudaSuccess; cudabridge::cudart::captured_module_launch(
            f->module->module, f->name, g, b, params, shared, s, cooperative, result))
        return from_runtime(result);
    return from_runtime(
        cudabridge::cudart::launch_module_kernel(f->module->module, f->name, g, b, params, shared, s, cooperative));
}

extern "C" {

CUresult cuLaunchKernel(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                        unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream, void** params,
                        void** extra) {
    if (params && extra) return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: both kernelParams and extra");
    return launch(f, {grid_x, grid_y, grid_z}, {block_x, block_y, block_z}, shared_bytes, stream, params, extra, false);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                                   unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream,
                                   void** params) {
    return launch(f, {grid_x, grid_y, grid_z}, {block_x, block_y, block_z}, shared_bytes, stream, params, nullptr,
                  true);
}

// What the device allows any kernel; registers and static sizes are not known before the code is
// compiled for the device, so they read 0. The versions are the device's (the module's PTX is
// compiled for it).
CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction f) {
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncGetAttribute: no such function");
    device_limits l;
    if (cudaError_t e = cudabridge::cudart::current_device_limits(l); e != cudaSuccess) return from_runtime(e);
    switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *value = l.max_threads_per_block;
        break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
        *value = 0;
        break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        *value = l.major * 10 + l.minor;
        break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = f->max_dynamic_shared ? f->max_dynamic_shared : static_cast<int>(l.shared_memory_per_block);
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *value = -1;
        break;
    default:
        if (attribute >= 10 && attribute <= 15) {  // cluster attributes: no clusters required
            *value = 0;
            break;
        }
        return fail(CUDA_ERROR_INVALID_VALUE, "cuFuncGetAttribute: no such attribute");
    }
    return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, int attribute, int value) {
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncSetAttribute: no such function");
    if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) f->max_dynamic_shared = value;
    return CUDA_SUCCESS;
}

CUresult cuFuncSetCacheConfig(CUfunction f, int /*config*/) {
    return live(f) ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncSetCacheConfig: no such function");
}

CUresult cuFuncGetName(const char** name, CUfunction f) {
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncGetName: no such function");
    *name = f->name.c_str();
    return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset, size_t* size) {
    if (!offset || !size) return CUDA_ERROR_INVALID_VALUE;
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncGetParamInfo: no such function");
    return from_runtime(cbModuleGetParamInfo(f->module->module, f->name.c_str(), index, offset, size));
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction f, int block_size, size_t shared_bytes) {
    if (!blocks || block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    if (!live(f))
        return fail(CUDA_ERROR_INVALID_HANDLE, "cuOccupancyMaxActiveBlocksPerMultiprocessor: no such function");
    device_limits l;
    if (cudaError_t e = cudabridge::cudart::current_device_limits(l); e != cudaSuccess) return from_runtime(e);
    *blocks = cudabridge::cudart::occupancy_blocks(l, block_size, shared_bytes);
    return CUDA_SUCCESS;
}

// The block size that fits the most threads on a multiprocessor (the largest such, as CUDA's
// picks), and the grid that fills the device with it. The dynamic shared memory is the callback's
// for each block size when there is one, else `shared_bytes`.
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid, int* block_size, CUfunction f,
                                                   size_t (*shared_for)(int), size_t shared_bytes, int limit,
                                                   unsigned /*flags*/) {
    if (!min_grid || !block_size) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuOccupancyMaxPotentialBlockSize: no such function");
    device_limits l;
    if (cudaError_t e = cudabridge::cudart::current_device_limits(l); e != cudaSuccess) return from_runtime(e);
    const int most = limit > 0 ? std::min(limit, l.max_threads_per_block) : l.max_threads_per_block;
    int best_size = 0, best_threads = 0, best_blocks = 0;
    for (int size = l.warp_size; size <= most; size += l.warp_size) {
        const size_t shared = shared_for ? shared_for(size) : shared_bytes;
        const int blocks = cudabridge::cudart::occupancy_blocks(l, size, shared);
        if (blocks * size >= best_threads && blocks > 0) {
            best_size = size, best_threads = blocks * size, best_blocks = blocks;
        }
    }
    if (best_size == 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuOccupancyMaxPotentialBlockSize: no block size fits");
    *block_size = best_size;
    *min_grid = best_blocks * l.multiprocessors;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, CUfunction f, size_t (*shared_for)(int),
                                          size_t shared_bytes, int limit) {
    return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block_size, f, shared_for, shared_bytes, limit, 0);
}

// CUlaunchAttributeID: the attributes a launch may carry. The cooperative one makes it a
// cooperative launch; a cluster of more than one block is refused (the simulated GPU has no
// thread-block clusters); the rest change nothing here (priority, access policy, memory-sync
// domains, programmatic serialization), as the runtime's cudaLaunchKernelEx treats them.
CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
    constexpr int cooperative_attribute = 2, cluster_dimension_attribute = 4;
    if (!config || (config->numAttrs && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
    if (params && extra) return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernelEx: both kernelParams and extra");
    bool cooperative = false;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const CUlaunchAttribute& a = config->attrs[i];
        if (a.id == cluster_dimension_attribute && (a.value[0] > 1 || a.value[1] > 1 || a.value[2] > 1))
            return not_supported("cuLaunchKernelEx (thread-block clusters)");
        if (a.id == cooperative_attribute && a.value[0] != 0) cooperative = true;
    }
    return launch(f, {config->gridDimX, config->gridDimY, config->gridDimZ},
                  {config->blockDimX, config->blockDimY, config->blockDimZ}, config->sharedMemBytes, config->hStream,
                  params, extra, cooperative);
}

CUresult cuFuncGetModule(CUmodule* module, CUfunction f) {
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncGetModule: no such function");
    *module = f->module;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, CUfunction f, int block_size,
                                                              size_t shared_bytes, unsigned /*flags*/) {
    return cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, block_size, shared_bytes);
}

}  // extern "C"

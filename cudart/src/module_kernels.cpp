#include "module_kernels.hpp"

#include "errors.hpp"
#include "host_functions.hpp"
#include "run_summary.hpp"
#include "stream_capture.hpp"

namespace cudabridge::cudart {

cudaError_t copy_module_kernel_arguments(cbModule_t module, const std::string& name, void** params, kernel_work& out) {
    out.module = module;
    out.module_kernel = name;
    out.arguments.clear();
    for (size_t i = 0;; ++i) {
        size_t offset = 0, size = 0;
        const cbError_t e = cbModuleGetParamInfo(module, name.c_str(), i, &offset, &size);
        if (e == cbErrorInvalidValue) break;  // past the last parameter
        if (e != cbSuccess) return record(e);
        if (!params || !params[i])
            return fail(
                cudaErrorInvalidValue,
                ("kernel node " + name + ": argument " + std::to_string(i) + " is missing (kernelParams)").c_str());
        const auto* bytes = static_cast<const unsigned char*>(params[i]);
        out.arguments.emplace_back(bytes, bytes + size);
    }
    (void)cbGetLastError();  // the loop ends on "no such parameter"
    out.pointers.clear();
    for (auto& a : out.arguments) out.pointers.push_back(a.data());
    return cudaSuccess;
}

cudaError_t launch_module_kernel(cbModule_t module, const std::string& name, dim3 grid, dim3 block, void** params,
                                 size_t shared_memory, cudaStream_t stream, bool cooperative) {
    launch_timer timer(stream);
    const cbStream_t queue = ordered(stream);
    const cbError_t e = cooperative
                            ? cbModuleLaunchCooperativeKernel(module, name.c_str(), {grid.x, grid.y, grid.z},
                                                              {block.x, block.y, block.z}, params, shared_memory, queue)
                            : cbModuleLaunchKernelParams(module, name.c_str(), {grid.x, grid.y, grid.z},
                                                         {block.x, block.y, block.z}, params, shared_memory, queue);
    if (e != cbSuccess) return record(e);
    timer.launched();
    return cudaSuccess;
}

bool captured_module_launch(cbModule_t module, const std::string& name, dim3 grid, dim3 block, void** params,
                            unsigned shared_memory, cudaStream_t stream, bool cooperative, cudaError_t& result) {
    if (!capturing(stream)) return false;
    if (cooperative) {
        result = fail(cudaErrorStreamCaptureUnsupported, ("capture of a cooperative launch of " + name).c_str());
        return true;
    }
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeKernel;
    node->kernel.grid = grid;
    node->kernel.block = block;
    node->kernel.shared_memory = shared_memory;
    result = copy_module_kernel_arguments(module, name, params, node->kernel);
    if (result == cudaSuccess) captured(stream, std::move(node), result);
    return true;
}

cudaError_t add_module_kernel_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                   size_t count, cbModule_t module, const std::string& name, dim3 grid, dim3 block,
                                   unsigned shared_memory, void** params) {
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeKernel;
    node->kernel.grid = grid;
    node->kernel.block = block;
    node->kernel.shared_memory = shared_memory;
    if (cudaError_t e = copy_module_kernel_arguments(module, name, params, node->kernel); e != cudaSuccess) return e;
    return add_node(out, graph, dependencies, count, std::move(node));
}

}  // namespace cudabridge::cudart

// Registration hooks nvcc's host code calls, and kernel launches (the <<<...>>> path and
// cudaLaunchKernel), plus what a program asks about a kernel (attributes, occupancy).
#include "device_limits.hpp"
#include "errors.hpp"
#include "handles.hpp"
#include "host_functions.hpp"
#include "managed_variables.hpp"
#include "registration.hpp"
#include "run_summary.hpp"
#include "stream_capture.hpp"

#include <algorithm>
#include <string>

using namespace cudabridge::cudart;

namespace {

// A launch on a capturing stream: a kernel node with the launch's arguments copied.
bool captured_launch(kernel_record* k, dim3 grid, dim3 block, void** args, size_t shared_memory, cudaStream_t stream,
                     cudaError_t& result) {
    if (!capturing(stream)) return false;
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeKernel;
    node->kernel.grid = grid;
    node->kernel.block = block;
    node->kernel.shared_memory = static_cast<unsigned>(shared_memory);
    result = copy_kernel_arguments(k, args, node->kernel);
    if (result == cudaSuccess) captured(stream, std::move(node), result);
    return true;
}

// cudaLaunchCooperativeKernel: every block resident at once (cooperative_grid_too_large).
cudaError_t launch_cooperative(kernel_record* k, const device_limits& limits, dim3 grid, dim3 block, void** args,
                               size_t shared_memory, cudaStream_t stream) {
    if (capturing(stream))
        return fail(cudaErrorStreamCaptureUnsupported,
                    ("capture of a cooperative launch of " + k->name + " is not supported").c_str());
    if (const std::string why = cooperative_grid_too_large(limits, grid, block, shared_memory, k->name); !why.empty())
        return fail(cudaErrorCooperativeLaunchTooLarge, why.c_str());
    cbModule_t module = nullptr;
    if (cudaError_t e = registered().module_on_current_device(*k->fatbin, module); e != cudaSuccess) return e;
    if (cudaError_t e = managed_variables_before_launch(*k->fatbin, module); e != cudaSuccess) return e;
    launch_timer timer(stream);
    const cbError_t e =
        cbModuleLaunchCooperativeKernel(module, k->name.c_str(), {grid.x, grid.y, grid.z}, {block.x, block.y, block.z},
                                        args, shared_memory, ordered(stream));
    if (e != cbSuccess) return record(e);
    timer.launched();
    return cudaSuccess;
}

}  // namespace

cudaError_t cudabridge::cudart::launch_registered(kernel_record* k, dim3 grid, dim3 block, void** args,
                                                  size_t shared_memory, cudaStream_t stream, bool cooperative) {
    if (!k) return fail(cudaErrorInvalidDeviceFunction, "launch: not a registered kernel");
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    device_limits limits;
    if (cudaError_t e = current_device_limits(limits); e != cudaSuccess) return e;
    if (cudaError_t e = check_launch_configuration(limits, grid, block, shared_memory); e != cudaSuccess)
        return fail(e, ("launch of " + k->name + ": grid, block or shared memory beyond the device's limits").c_str());
    if (cooperative) return launch_cooperative(k, limits, grid, block, args, shared_memory, stream);
    if (cudaError_t result = cudaSuccess; captured_launch(k, grid, block, args, shared_memory, stream, result))
        return result;
    cbModule_t module = nullptr;
    if (cudaError_t e = registered().module_on_current_device(*k->fatbin, module); e != cudaSuccess) return e;
    if (cudaError_t e = managed_variables_before_launch(*k->fatbin, module); e != cudaSuccess) return e;
    launch_timer timer(stream);
    const cbError_t e = cbModuleLaunchKernelParams(module, k->name.c_str(), {grid.x, grid.y, grid.z},
                                                   {block.x, block.y, block.z}, args, shared_memory, ordered(stream));
    if (e != cbSuccess) return record(e);
    timer.launched();
    return cudaSuccess;
}

extern "C" {

void** __cudaRegisterFatBinary(void* wrapper) { return reinterpret_cast<void**>(registered().add_fatbin(wrapper)); }

void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}

void __cudaUnregisterFatBinary(void** handle) {
    forget_managed_variables(reinterpret_cast<fatbin_record*>(handle));
    registered().remove_fatbin(reinterpret_cast<fatbin_record*>(handle));
}

// What a translation unit's first host access to one of its __managed__ variables calls: from
// then on its host pointers point at memory that holds them (managed_variables.hpp).
char __cudaInitModule(void** handle) {
    if (!handle) return 0;
    return bind_managed_variables(*reinterpret_cast<fatbin_record*>(handle)) == cudaSuccess ? 1 : 0;
}

void __cudaRegisterFunction(void** handle, const char* host_function, char* /*device_function*/,
                            const char* device_name, int /*thread_limit*/, uint3* /*tid*/, uint3* /*bid*/,
                            dim3* /*block*/, dim3* /*grid*/, int* /*warp_size*/) {
    registered().add_kernel(reinterpret_cast<fatbin_record*>(handle), host_function, device_name);
}

void __cudaRegisterVar(void** handle, char* host_variable, char* /*device_address*/, const char* device_name,
                       int /*ext*/, size_t size, int constant, int /*global*/) {
    registered().add_variable(reinterpret_cast<fatbin_record*>(handle), host_variable, device_name, size,
                              constant != 0);
}

void __cudaRegisterManagedVar(void** handle, void** host_variable, char* /*device_address*/, const char* device_name,
                              int /*ext*/, size_t size, int /*constant*/, int /*global*/) {
    add_managed_variable(reinterpret_cast<fatbin_record*>(handle), host_variable, device_name, size);
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_memory, cudaStream_t stream) {
    push_configuration({grid, block, shared_memory, stream});
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared_memory, void* stream) {
    call_configuration c;
    if (!pop_configuration(c)) return record(cudaErrorMissingConfiguration);
    *grid = c.grid;
    *block = c.block;
    *shared_memory = c.shared_memory;
    *static_cast<cudaStream_t*>(stream) = c.stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_function) {
    kernel_record* k = registered().kernel(host_function);
    if (!kernel || !k) return record(cudaErrorInvalidDeviceFunction);
    *kernel = reinterpret_cast<cudaKernel_t>(k);
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_memory,
                               cudaStream_t stream) {
    return launch_registered(reinterpret_cast<kernel_record*>(kernel), grid, block, args, shared_memory, stream);
}

// A <<<...>>> launch in a program built with --default-stream per-thread: NULL is the thread's stream.
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_memory,
                                    cudaStream_t stream) {
    return launch_registered(reinterpret_cast<kernel_record*>(kernel), grid, block, args, shared_memory,
                             per_thread_if_null(stream));
}

cudaError_t cudaLaunchKernel(const void* function, dim3 grid, dim3 block, void** args, size_t shared_memory,
                             cudaStream_t stream) {
    return launch_registered(registered().kernel(function), grid, block, args, shared_memory, stream);
}

// cudaLaunchKernelEx (an inline template in CUDA's header) calls this with the launch's attributes.
// The ones that change nothing here are accepted (priority, access policy, synchronization policy,
// memory-sync domains, programmatic serialization, a 1x1x1 cluster); the cooperative one makes
// it cudaLaunchCooperativeKernel's launch; a real cluster is refused with its reason.
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig* config, const void* function, void** args) {
    if (!config || (config->numAttrs && !config->attrs)) return record(cudaErrorInvalidValue);
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const cudaLaunchAttribute& a = config->attrs[i];

        if (a.id == launch_attribute_cluster_dimension && (a.value[0] > 1 || a.value[1] > 1 || a.value[2] > 1))
            return not_supported("cudaLaunchKernelEx (thread-block clusters)");
    }
    bool cooperative = false;
    for (unsigned i = 0; i < config->numAttrs; ++i)
        if (config->attrs[i].id == launch_attribute_cooperative && config->attrs[i].value[0] != 0) cooperative = true;
    return launch_registered(registered().kernel(function), config->gridDim, config->blockDim, args,
                             config->dynamicSmemBytes, config->stream, cooperative);
}

cudaError_t cudaLaunchCooperativeKernel(const void* function, dim3 grid, dim3 block, void** args, size_t shared_memory,
                                        cudaStream_t stream) {
    return launch_registered(registered().kernel(function), grid, block, args, shared_memory, stream, true);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* function, dim3 grid, dim3 block, void** args,
                                             size_t shared_memory, cudaStream_t stream) {
    return launch_registered(registered().kernel(function), grid, block, args, shared_memory,
                             per_thread_if_null(stream), true);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig* config, const void* function, void** args) {
    if (!config) return record(cudaErrorInvalidValue);
    cudaLaunchConfig c = *config;
    c.stream = per_thread_if_null(c.stream);
    return cudaLaunchKernelExC(&c, function, args);
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* function) {
    if (!attributes) return record(cudaErrorInvalidValue);
    const kernel_record* k = registered().kernel(function);
    if (!k) return record(cudaErrorInvalidDeviceFunction);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    device_limits limits;
    if (cudaError_t e = current_device_limits(limits); e != cudaSuccess) return e;
    // What the device allows any kernel; registers and static sizes are not known before the
    // code is compiled for the device, so they read 0.
    *attributes = cudaFuncAttributes{};
    attributes->maxThreadsPerBlock = limits.max_threads_per_block;
    // The PTX the device runs is the module's (CUB picks its tuning by it); its machine code is
    // compiled from that PTX for the device.
    attributes->binaryVersion = limits.major * 10 + limits.minor;
    attributes->ptxVersion = k->fatbin->ptx_architecture_for(limits.major, limits.minor);
    if (attributes->ptxVersion == 0) attributes->ptxVersion = attributes->binaryVersion;
    attributes->maxDynamicSharedSizeBytes = static_cast<int>(limits.shared_memory_per_block);
    attributes->preferredShmemCarveout = -1;
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* function, int /*attribute*/, int /*value*/) {
    return registered().kernel(function) ? cudaSuccess : record(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaFuncSetCacheConfig(const void* function, int /*config*/) {
    return registered().kernel(function) ? cudaSuccess : record(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaFuncSetSharedMemConfig(const void* function, int /*config*/) {
    return registered().kernel(function) ? cudaSuccess : record(cudaErrorInvalidDeviceFunction);
}

// The kernel's name as its module knows it (the mangled symbol, as CUDA gives it).
cudaError_t cudaFuncGetName(const char** name, const void* function) {
    if (!name) return record(cudaErrorInvalidValue);
    const kernel_record* k = registered().kernel(function);
    if (!k) return record(cudaErrorInvalidDeviceFunction);
    *name = k->name.c_str();
    return cudaSuccess;
}

cudaError_t cudaGetKernel(cudaKernel_t* kernel, const void* function) { return __cudaGetKernel(kernel, function); }

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* function, int block_size,
                                                                   size_t dynamic_shared, unsigned /*flags*/) {
    if (!blocks || block_size <= 0) return record(cudaErrorInvalidValue);
    if (!registered().kernel(function)) return record(cudaErrorInvalidDeviceFunction);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    device_limits l;
    if (cudaError_t e = current_device_limits(l); e != cudaSuccess) return e;
    *blocks = occupancy_blocks(l, block_size, dynamic_shared);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* function, int block_size,
                                                          size_t dynamic_shared) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, function, block_size, dynamic_shared, 0);
}

}  // extern "C"

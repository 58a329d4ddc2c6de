// The device runtime's functions by name, kernel addresses, and the helpers the generated code
// calls for a launch from a kernel (device_launch.hpp).
#include "sim/ptx/device_launch.hpp"

#include "sim/ptx/abi.hpp"
#include "sim/ptx/device_heap.hpp"

#include <cstring>

namespace cudabridge::nv::ptx {

device_runtime_call device_runtime_function(const std::string& name) {
    static const std::map<std::string, device_runtime_call> names = {
        {"__cudaCDP2GetParameterBufferV2", device_runtime_call::parameter_buffer},
        {"__cudaCDP2LaunchDeviceV2", device_runtime_call::launch},
        {"__cudaCDP2StreamCreateWithFlags", device_runtime_call::stream_create},
        {"__cudaCDP2StreamDestroy", device_runtime_call::stream_destroy},
        {"__cudaCDP2MemcpyAsync", device_runtime_call::memcpy},
        {"__cudaCDP2GetLastError", device_runtime_call::last_error},
        {"__cudaCDP2PeekAtLastError", device_runtime_call::peek_error},
        {"__cudaCDP2GetErrorString", device_runtime_call::error_string},
        {"cudaGraphSetConditional", device_runtime_call::set_conditional},
    };
    const auto it = names.find(name);
    return it == names.end() ? device_runtime_call::none : it->second;
}

void device_runtime_signature(device_runtime_call call, size_t& arguments, size_t& returns) {
    returns = 1;
    switch (call) {
    case device_runtime_call::parameter_buffer:
        arguments = 4;  // kernel, grid (dim3), block (dim3), shared bytes
        return;
    case device_runtime_call::launch:
    case device_runtime_call::stream_create:
        arguments = 2;
        return;
    case device_runtime_call::stream_destroy:
    case device_runtime_call::error_string:
        arguments = 1;
        return;
    case device_runtime_call::memcpy:
        arguments = 5;  // destination, source, bytes, kind, stream
        return;
    case device_runtime_call::set_conditional:
        arguments = 2;  // handle, value
        returns = 0;
        return;
    case device_runtime_call::last_error:
    case device_runtime_call::peek_error:
        arguments = 0;
        return;
    case device_runtime_call::none:
        arguments = returns = 0;
        return;
    }
}

uint64_t kernel_address(size_t kernel) { return function_window | kernel_address_bit | (uint64_t{kernel} + 1); }

bool kernel_of_address(uint64_t address, size_t kernel_count, size_t& kernel) {
    if ((address & (window_mask | kernel_address_bit)) != (function_window | kernel_address_bit)) return false;
    const uint64_t index = address & ~(window_mask | kernel_address_bit);
    if (index == 0 || index > kernel_count) return false;
    kernel = static_cast<size_t>(index - 1);
    return true;
}

namespace {

device_launch_queue* queue_of(block_env* env) { return static_cast<device_launch_queue*>(env->device_launches); }

// What cudaGetErrorString returns in a kernel: the text in the device heap, where printf can
// read it (NULL without a heap).
const char* error_text(uint32_t code) {
    switch (code) {
    case cuda_success:
        return "no error";
    case cuda_error_invalid_value:
        return "invalid argument";
    case cuda_error_launch_max_depth_exceeded:
        return "launch failed because launch would exceed cudaLimitDevRuntimeSyncDepth";
    case cuda_error_launch_pending_count_exceeded:
        return "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount";
    default:
        return "unrecognized error code";
    }
}

}  // namespace

extern "C" uint64_t cb_ptx_parameter_buffer(block_env* env, uint64_t kernel, uint32_t grid_x, uint32_t grid_y,
                                            uint32_t grid_z, uint32_t block_x, uint32_t block_y, uint32_t block_z,
                                            uint32_t shared) {
    device_launch_queue* q = queue_of(env);
    device_launch launch;
    if (!q || !kernel_of_address(kernel, q->param_bytes->size(), launch.kernel)) return 0;
    launch.grid[0] = grid_x, launch.grid[1] = grid_y, launch.grid[2] = grid_z;
    launch.block[0] = block_x, launch.block[1] = block_y, launch.block[2] = block_z;
    launch.shared = shared;
    const uint64_t bytes = std::max<uint32_t>((*q->param_bytes)[launch.kernel], 1);
    const uint64_t buffer = heap_allocate(env->heap_host, env->heap_base, env->heap_size, bytes);
    if (!buffer) return 0;
    std::lock_guard lock(q->mutex);
    q->buffers[buffer] = std::move(launch);
    return buffer;
}

extern "C" uint32_t cb_ptx_launch_device(block_env* env, uint64_t buffer, uint64_t /*stream*/) {
    device_launch_queue* q = queue_of(env);
    if (!q) return cuda_error_invalid_value;
    std::lock_guard lock(q->mutex);
    const auto it = q->buffers.find(buffer);
    if (it == q->buffers.end()) return cuda_error_invalid_value;
    if (q->depth + 1 > max_launch_depth) return cuda_error_launch_max_depth_exceeded;
    if (q->launches.size() >= max_pending_launches) return cuda_error_launch_pending_count_exceeded;
    device_launch launch = std::move(it->second);
    q->buffers.erase(it);
    const uint8_t* arguments = env->heap_host + (buffer - env->heap_base);
    launch.params.assign(arguments, arguments + (*q->param_bytes)[launch.kernel]);
    heap_release(env->heap_host, env->heap_base, env->heap_size, buffer);
    q->launches.push_back(std::move(launch));
    return cuda_success;
}

// cudaMemcpyDeviceToDevice (3) or cudaMemcpyDefault (4), both ranges inside VRAM.
extern "C" uint32_t cb_ptx_memcpy_device(block_env* env, uint64_t to, uint64_t from, uint64_t bytes, uint32_t kind) {
    device_launch_queue* q = queue_of(env);
    auto in_vram = [&](uint64_t at) {
        return at >= env->vram_base && at - env->vram_base <= env->vram_size &&
               env->vram_size - (at - env->vram_base) >= bytes;
    };
    if (!q || (kind != 3 && kind != 4) || !in_vram(to) || !in_vram(from)) return cuda_error_invalid_value;
    if (bytes == 0) return cuda_success;
    std::lock_guard lock(q->mutex);
    if (q->launches.size() >= max_pending_launches) return cuda_error_launch_pending_count_exceeded;
    device_launch copy;
    copy.copy_to = to, copy.copy_from = from, copy.copy_bytes = bytes;
    q->launches.push_back(std::move(copy));
    return cuda_success;
}

extern "C" uint64_t cb_ptx_error_string(block_env* env, uint32_t code) {
    device_launch_queue* q = queue_of(env);
    if (!q) return 0;
    std::lock_guard lock(q->mutex);
    if (const auto it = q->strings.find(code); it != q->strings.end()) return it->second;
    const char* text = error_text(code);
    const uint64_t bytes = std::strlen(text) + 1;
    const uint64_t at = heap_allocate(env->heap_host, env->heap_base, env->heap_size, bytes);
    if (!at) return 0;
    std::memcpy(env->heap_host + (at - env->heap_base), text, bytes);
    q->strings[code] = at;
    return at;
}

void release_unlaunched(device_launch_queue& q, uint8_t* heap_host, uint64_t heap_base, uint64_t heap_size) {
    for (const auto& [address, launch] : q.buffers) heap_release(heap_host, heap_base, heap_size, address);
    for (const auto& [code, address] : q.strings) heap_release(heap_host, heap_base, heap_size, address);
    q.buffers.clear();
    q.strings.clear();
}

}  // namespace cudabridge::nv::ptx

// Dynamic parallelism: kernels that launch kernels (CUDA's device runtime, CDP2 as CUDA 12 and 13
// define it). nvcc -rdc compiles a launch in a kernel to calls of the device runtime, which the
// engine provides itself:
//   __cudaCDP2GetParameterBufferV2(kernel, grid, block, shared bytes): a buffer for the child's
//     arguments, from the device heap (NULL when the heap is full, as CUDA's may be);
//   __cudaCDP2LaunchDeviceV2(buffer, stream): queues the child with the arguments written there;
//   __cudaCDP2MemcpyAsync (device to device): queued with the launches, in order;
//   stream create and destroy, cudaGetLastError / PeekAtLastError (the thread's last launch
//   error, in its record) and cudaGetErrorString;
//   cudaGraphSetConditional(handle, value): cudart's conditional handle is the device address of
//   the condition's 32-bit value, so setting it is a checked store there (no -rdc needed).
// In CDP2 a parent cannot wait for its children, and a child grid completes before its parent
// is considered complete; the engine runs the children a grid queued after that grid's last
// block, in the order they were queued (their children after them), before the launch returns.
// A kernel's address (mov.u64 %rd, kernel) is kernel_address(its index in the module).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

enum class device_runtime_call {
    none,
    parameter_buffer,
    launch,
    stream_create,
    stream_destroy,
    memcpy,      // cudaMemcpyAsync, device to device, in order with the grid's launches
    last_error,  // cudaGetLastError: the thread's last error, which it clears
    peek_error,  // cudaPeekAtLastError: the same, kept
    error_string,
    set_conditional,
};

// Which device-runtime function `name` is (nvcc's __cudaCDP2* names).
device_runtime_call device_runtime_function(const std::string& name);
// The .param arguments and returns of its declaration.
void device_runtime_signature(device_runtime_call call, size_t& arguments, size_t& returns);

inline constexpr uint64_t kernel_address_bit = 1ull << 59;
// What cudaStreamCreateWithFlags gives a kernel (every stream of a grid is its one queue).
inline constexpr uint64_t device_stream_handle = 0x10;
uint64_t kernel_address(size_t kernel);
// The kernel index of a kernel address; false for any other value.
bool kernel_of_address(uint64_t address, size_t kernel_count, size_t& kernel);

// CUDA's limits: cudaLimitDevRuntimePendingLaunchCount (2048 by default) and the nesting depth
// of grids (24): a launch past either fails in the kernel, with CUDA's error code.
inline constexpr size_t max_pending_launches = 2048;
inline constexpr uint32_t max_launch_depth = 24;

// A grid a kernel launched, or a copy it queued (copy_bytes > 0).
struct device_launch {
    size_t kernel = 0;
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    uint32_t shared = 0;
    std::vector<uint8_t> params;
    uint64_t copy_to = 0, copy_from = 0, copy_bytes = 0;
};

// What one grid's blocks queue, from any host thread.
struct device_launch_queue {
    const std::vector<uint32_t>* param_bytes = nullptr;  // per kernel of the module (the program's)
    uint32_t depth = 0;                                  // of the grid whose blocks queue: 0 for a launch from the host
    std::mutex mutex;
    std::map<uint64_t, device_launch> buffers;  // handed out, not launched yet: by device address
    std::vector<device_launch> launches;        // in the order they were queued
    std::map<uint32_t, uint64_t> strings;       // cudaGetErrorString's texts in the heap, by code
};

// Once the grid is done: the heap blocks of buffers it never launched and of the error texts.
void release_unlaunched(device_launch_queue& q, uint8_t* heap_host, uint64_t heap_base, uint64_t heap_size);

// The CUDA error codes the device runtime returns.
inline constexpr uint32_t cuda_success = 0;
inline constexpr uint32_t cuda_error_invalid_value = 1;
inline constexpr uint32_t cuda_error_launch_max_depth_exceeded = 65;
inline constexpr uint32_t cuda_error_launch_pending_count_exceeded = 69;

}  // namespace cudabridge::nv::ptx

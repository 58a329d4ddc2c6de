// cbDeviceSetLimit / cbDeviceGetLimit: the call stack and the device heap a kernel may use, which
// every later launch of a user kernel carries to the GPU family (cb_kernel_launch.stack_bytes,
// heap_bytes). CUDA's bounds: a stack of at most 512 KiB per thread, a heap of at least its
// default's granularity and at most the device's memory.
#include "runtime/device_context.hpp"

#include <string>

namespace cudabridge::host {
namespace {
constexpr uint64_t most_stack_bytes = 512u << 10;
}  // namespace

cbError_t device_context::set_limit(cbLimit limit, size_t value) {
    if (limit == cbLimitStackSize) {
        if (value > most_stack_bytes)
            return set_last_error(cbErrorInvalidValue, "cbDeviceSetLimit: a stack of " + std::to_string(value) +
                                                           " bytes per thread is more than CUDA's 512 KiB");
        // CUDA rounds the stack to 16 bytes.
        stack_bytes_.store((uint64_t{value} + 15) / 16 * 16, std::memory_order_relaxed);
        return cbSuccess;
    }
    if (limit == cbLimitMallocHeapSize) {
        size_t free = 0, total = 0;
        if (cbError_t e = mem_get_info(&free, &total); e != cbSuccess) return e;
        if (value > total)
            return set_last_error(cbErrorInvalidValue, "cbDeviceSetLimit: a device heap of " + std::to_string(value) +
                                                           " bytes is more than the device's memory");
        heap_bytes_.store(value ? value : CB_DEFAULT_HEAP_BYTES, std::memory_order_relaxed);
        return cbSuccess;
    }
    return set_last_error(cbErrorInvalidValue, "cbDeviceSetLimit: unknown limit " + std::to_string(int(limit)));
}

cbError_t device_context::get_limit(size_t* value, cbLimit limit) {
    if (!value) return set_last_error(cbErrorInvalidValue, "cbDeviceGetLimit: value is NULL");
    if (limit == cbLimitStackSize)
        *value = stack_bytes_.load(std::memory_order_relaxed);
    else if (limit == cbLimitMallocHeapSize)
        *value = heap_bytes_.load(std::memory_order_relaxed);
    else
        return set_last_error(cbErrorInvalidValue, "cbDeviceGetLimit: unknown limit " + std::to_string(int(limit)));
    return cbSuccess;
}

}  // namespace cudabridge::host

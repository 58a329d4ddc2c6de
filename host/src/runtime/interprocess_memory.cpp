// device_context: device memory shared with other processes, through the GPU family
// (cb_gpu_table.mem_share and mem_open_shared, ABI 1.17). Memory opened here is device memory
// for copies and kernels like an allocation of this process, until cbIpcCloseMemHandle.
#include "runtime/device_context.hpp"

#include <cudabridge/host/session.hpp>

#include <cstring>

namespace cudabridge::host {

namespace {

bool can_share(const cb_gpu_table* t) {
    return CB_HAS_FIELD(t, cb_gpu_table, mem_open_shared) && t->mem_share && t->mem_open_shared;
}

cb_status not_shared(const std::string& family) {
    core::set_last_error("the GPU family '" + family + "' cannot share device memory between processes");
    return CB_ERR_UNSUPPORTED;
}

}  // namespace

cbError_t device_context::ipc_get_mem_handle(cbIpcMemHandle_t* handle, void* ptr) {
    if (!handle || !ptr) return set_last_error(cbErrorInvalidValue, "cbIpcGetMemHandle: NULL argument");
    if (!allocator_->range_valid(address_of(ptr), 1))
        return set_last_error(cbErrorInvalidValue, "cbIpcGetMemHandle: not inside an allocation made by cbMalloc");
    const cbError_t e = call("cbIpcGetMemHandle", [&](gpu_call& g) -> cb_status {
        if (!can_share(g.t)) return not_shared(s_.gpu_info().name);
        return g.t->mem_share(g.instance, g.handle, address_of(ptr), handle->reserved);
    });
    if (e == cbSuccess) {
        std::lock_guard lock(objects_mutex_);
        shared_allocations_.insert(allocator_->find(address_of(ptr))->base);
    }
    return e;
}

// Freed, a shared allocation goes back to the family at once (which stops sharing it), so that
// its handle opens nothing and no later cbMalloc here hands out memory another process reaches.
bool device_context::forget_shared(uint64_t ptr) {
    std::lock_guard lock(objects_mutex_);
    return shared_allocations_.erase(ptr) != 0;
}

cbError_t device_context::ipc_open_mem_handle(void** ptr, const cbIpcMemHandle_t& handle, unsigned /*flags*/) {
    if (!ptr) return set_last_error(cbErrorInvalidValue, "cbIpcOpenMemHandle: devPtr is NULL");
    uint64_t address = 0, bytes = 0;
    const cbError_t e = call("cbIpcOpenMemHandle", [&](gpu_call& g) -> cb_status {
        if (!can_share(g.t)) return not_shared(s_.gpu_info().name);
        return g.t->mem_open_shared(g.instance, g.handle, handle.reserved, &address, &bytes);
    });
    *ptr = nullptr;
    // Memory the other process has freed (or a process gone) is no resource any more, as in CUDA.
    if (e == cbErrorNotFound) return set_last_error(cbErrorInvalidResourceHandle, core::last_error());
    if (e != cbSuccess) return e;
    std::lock_guard lock(objects_mutex_);
    opened_range& r = opened_memory_[address];
    r.bytes = bytes;
    ++r.openings;
    opened_count_.store(opened_memory_.size(), std::memory_order_release);
    *ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
    return cbSuccess;
}

cbError_t device_context::ipc_close_mem_handle(void* ptr) {
    {
        std::lock_guard lock(objects_mutex_);
        if (!ptr || !opened_memory_.count(address_of(ptr)))
            return set_last_error(cbErrorInvalidValue, "cbIpcCloseMemHandle: not memory cbIpcOpenMemHandle gave");
    }
    // Work queued on the memory finishes before it is unmapped, as cudaFree waits.
    const cbError_t e = call("cbIpcCloseMemHandle", [&](gpu_call& g) -> cb_status {
        const cb_status st = g.t->device_synchronize(g.instance, g.handle);
        const cb_status closed = g.t->mem_free(g.instance, g.handle, address_of(ptr));
        return st != CB_OK ? st : closed;
    });
    // The pointer stays device memory while an opening is left (the family counts them too).
    std::lock_guard lock(objects_mutex_);
    auto it = opened_memory_.find(address_of(ptr));
    if (e == cbSuccess && it != opened_memory_.end() && --it->second.openings == 0) {
        opened_memory_.erase(it);
        opened_count_.store(opened_memory_.size(), std::memory_order_release);
    }
    return e;
}

}  // namespace cudabridge::host

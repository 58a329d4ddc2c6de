// Managed memory (cbMallocManaged) and zero-copy host memory (cbHostGetDevicePointer), and what
// the GPU family says of both (cbDeviceGetAttribute). Managed memory is the family's (ABI 1.9's
// mem_alloc_managed): one address for host code and kernels. The runtime keeps its ranges so that
// copies and fills take them on either side and cbFree gives them back.
#include "runtime/device_context.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/host/session.hpp>

#include <cstring>

namespace cudabridge::host {
namespace {

bool in_ranges(const std::map<uintptr_t, size_t>& ranges, uint64_t address, uint64_t bytes) {
    auto it = ranges.upper_bound(address);
    if (it == ranges.begin()) return false;
    --it;
    return address - it->first < it->second && bytes <= it->second - (address - it->first);
}

// An entry the family leaves out, or answers CB_ERR_UNSUPPORTED from: the same to the caller.
cb_status unsupported(const std::string& family, const char* what) {
    core::set_last_error("the GPU family '" + family + "' gives no " + what +
                         " (its kernels cannot reach host memory, or it predates ABI 1.9)");
    return CB_ERR_UNSUPPORTED;
}

}  // namespace

bool device_context::is_managed_range(uint64_t address, uint64_t bytes) const {
    if (managed_count_.load(std::memory_order_acquire) == 0) return false;  // no lock on every copy
    std::lock_guard lock(objects_mutex_);
    return in_ranges(managed_, address, bytes);
}

bool device_context::names_pinned_as_device(const void* dst, const void* src, size_t count, cbMemcpyKind kind,
                                            bool dst_dev, bool src_dev) const {
    const bool dst_named = (kind == cbMemcpyHostToDevice || kind == cbMemcpyDeviceToDevice) && !dst_dev;
    const bool src_named = (kind == cbMemcpyDeviceToHost || kind == cbMemcpyDeviceToDevice) && !src_dev;
    if (!dst_named && !src_named) return false;  // the usual case: no lock taken
    std::lock_guard lock(objects_mutex_);
    return (!dst_named || in_ranges(pinned_, address_of(dst), count)) &&
           (!src_named || in_ranges(pinned_, address_of(src), count));
}

cbError_t device_context::malloc_managed(void** ptr, size_t size, unsigned flags) {
    if (!ptr) return set_last_error(cbErrorInvalidValue, "cbMallocManaged: ptr is NULL");
    *ptr = nullptr;
    if (size == 0) return set_last_error(cbErrorInvalidValue, "cbMallocManaged: size 0");
    if (flags != cbMemAttachGlobal && flags != cbMemAttachHost)
        return set_last_error(cbErrorInvalidValue,
                              "cbMallocManaged: flags must be cbMemAttachGlobal or cbMemAttachHost");
    uint64_t p = 0;
    const cbError_t e = call("cbMallocManaged", [&](gpu_call& g) -> cb_status {
        if (!CB_HAS_FIELD(g.t, cb_gpu_table, mem_alloc_managed) || !g.t->mem_alloc_managed)
            return unsupported(s_.gpu_info().name, "managed memory");
        const cb_status st = g.t->mem_alloc_managed(g.instance, g.handle, size, &p);
        return st == CB_ERR_UNSUPPORTED && core::last_error().empty()
                   ? unsupported(s_.gpu_info().name, "managed memory")
                   : st;
    });
    if (e != cbSuccess) return e;
    {
        std::lock_guard lock(objects_mutex_);
        managed_[static_cast<uintptr_t>(p)] = size;
        managed_count_.store(managed_.size(), std::memory_order_release);
    }
    *ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(p));
    return cbSuccess;
}

bool device_context::free_managed(void* ptr, cbError_t& e) {
    {
        std::lock_guard lock(objects_mutex_);
        if (!managed_.count(static_cast<uintptr_t>(address_of(ptr)))) return false;
    }
    e = call("cbFree", [&](gpu_call& g) -> cb_status {
        // As cudaFree: kernels queued with it may still use it.
        const cb_status st = g.t->device_synchronize(g.instance, g.handle);
        const cb_status freed = g.t->mem_free(g.instance, g.handle, address_of(ptr));
        return st != CB_OK ? st : freed;
    });
    std::lock_guard lock(objects_mutex_);
    managed_.erase(static_cast<uintptr_t>(address_of(ptr)));
    managed_count_.store(managed_.size(), std::memory_order_release);
    return true;
}

void device_context::release_managed(const cb_gpu_table* t, void* instance, cb_gpu_device* handle) {
    for (const auto& [start, size] : managed_)
        if (handle) t->mem_free(instance, handle, start);
    managed_.clear();
    managed_count_.store(0, std::memory_order_release);
}

cbError_t device_context::host_device_pointer(void** out, void* host, unsigned flags) {
    if (!out || !host) return set_last_error(cbErrorInvalidValue, "cbHostGetDevicePointer: NULL argument");
    if (flags != 0) return set_last_error(cbErrorInvalidValue, "cbHostGetDevicePointer: flags must be 0");
    {
        std::lock_guard lock(objects_mutex_);
        if (!in_ranges(pinned_, address_of(host), 1))
            return set_last_error(cbErrorInvalidValue,
                                  "cbHostGetDevicePointer: not pinned host memory (cbMallocHost, "
                                  "cbHostRegister)");
    }
    uint64_t address = 0;
    const cbError_t e = call("cbHostGetDevicePointer", [&](gpu_call& g) -> cb_status {
        if (!CB_HAS_FIELD(g.t, cb_gpu_table, host_device_address) || !g.t->host_device_address)
            return unsupported(s_.gpu_info().name, "zero-copy host memory");
        const cb_status st = g.t->host_device_address(g.instance, g.handle, host, &address);
        if (st == CB_ERR_UNSUPPORTED && core::last_error().empty())
            return unsupported(s_.gpu_info().name, "zero-copy host memory");
        // Pinned here but not in the family: registered while it had no host_register.
        return st == CB_ERR_NOT_FOUND ? CB_ERR_UNSUPPORTED : st;
    });
    if (e == cbSuccess) *out = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
    return e;
}

// Asks the family once by calling the entry itself: a small allocation freed at once, and the
// address of memory nobody registered (CB_ERR_NOT_FOUND means the entry works).
cbError_t device_context::attribute(cbDeviceAttr attr, int& value) {
    auto ask = [&](std::atomic<int>& known, const char* what, auto probe) -> cbError_t {
        if (known.load() < 0) {
            const cbError_t e = call(what, [&](gpu_call& g) -> cb_status {
                known.store(probe(g) ? 1 : 0);
                return CB_OK;
            });
            if (e != cbSuccess) return e;
        }
        value = known.load();
        return cbSuccess;
    };
    switch (attr) {
    case cbDevAttrManagedMemory:
        return ask(can_manage_, "cbDeviceGetAttribute", [](gpu_call& g) {
            uint64_t p = 0;
            if (!CB_HAS_FIELD(g.t, cb_gpu_table, mem_alloc_managed) || !g.t->mem_alloc_managed ||
                g.t->mem_alloc_managed(g.instance, g.handle, 1, &p) != CB_OK)
                return false;
            g.t->mem_free(g.instance, g.handle, p);
            return true;
        });
    case cbDevAttrCanMapHostMemory:
    case cbDevAttrCanUseHostPointerForRegisteredMem:
        return ask(can_map_, "cbDeviceGetAttribute", [](gpu_call& g) {
            static const char nobody_registered = 0;
            uint64_t address = 0;
            return CB_HAS_FIELD(g.t, cb_gpu_table, host_device_address) && g.t->host_device_address &&
                   g.t->host_device_address(g.instance, g.handle, &nobody_registered, &address) == CB_ERR_NOT_FOUND;
        });
    case cbDevAttrConcurrentManagedAccess:
        value = 0;  // the ABI cannot ask; 0 is the safe answer: programs synchronize first
        return cbSuccess;
    }
    return set_last_error(cbErrorInvalidValue, "cbDeviceGetAttribute: unknown attribute");
}

// Host-side copies and fills that involve managed memory wait for the work before them first:
// kernels may still be writing it.
cbError_t device_context::wait_for_managed(cbStream_st* stream, bool async) {
    return async ? stream_synchronize(stream) : synchronize();
}

}  // namespace cudabridge::host

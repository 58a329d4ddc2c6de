// Kernel launches: built-ins by name, and user modules (PTX / CUBIN / fatbin / CUDA source on
// the kernel-driver backend; C functions on a simulated GPU, host_kernels.h).
#include "connection/device_impl.hpp"
#include "runtime/device_context.hpp"

#include <cudabridge/host_kernels.h>

#include <algorithm>
#include <cstring>

namespace cudabridge::host {
namespace {

cb_kernel_launch make_launch(const char* name, cb_dtype dtype, cbDim3 grid, cbDim3 block, const cbKernelArg* args,
                             size_t count, size_t shared_memory, void* const* kernel_params = nullptr) {
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = name;
    l.dtype = dtype;
    l.grid[0] = grid.x;
    l.grid[1] = grid.y;
    l.grid[2] = grid.z;
    l.block[0] = block.x;
    l.block[1] = block.y;
    l.block[2] = block.z;
    l.shared_memory_bytes = static_cast<uint32_t>(shared_memory);
    l.args = args;
    l.arg_count = count;
    l.kernel_params = kernel_params;
    return l;
}

size_t dtype_bytes(cb_dtype dtype) {
    switch (dtype) {
    case CB_DTYPE_COMPLEX128:
        return 16;
    case CB_DTYPE_FLOAT64:
    case CB_DTYPE_INT64:
    case CB_DTYPE_UINT64:
    case CB_DTYPE_COMPLEX64:
        return 8;
    case CB_DTYPE_FLOAT32:
    case CB_DTYPE_INT32:
    case CB_DTYPE_UINT32:
        return 4;
    case CB_DTYPE_INT16:
    case CB_DTYPE_UINT16:
    case CB_DTYPE_FLOAT16:
        return 2;
    default:
        return 1;
    }
}

// The bytes a tensor operand spans: [first, end) from its pointer, shape and strides; false
// when it has no element or its extent overflows (the plugin refuses those itself).
bool tensor_span(const cb_tensor_desc& t, uint64_t& first, uint64_t& end) {
    if (t.ndim < 0 || t.ndim > CB_TENSOR_MAX_DIMS) return false;
    int64_t low = 0, high = 0;  // in elements, from the pointer
    for (int i = 0; i < t.ndim; ++i) {
        int64_t reach = 0;
        if (t.shape[i] <= 0 || __builtin_mul_overflow(t.shape[i] - 1, t.strides[i], &reach)) return false;
        if (__builtin_add_overflow(reach < 0 ? low : high, reach, reach < 0 ? &low : &high)) return false;
    }
    const auto size = static_cast<int64_t>(dtype_bytes(t.dtype));
    int64_t low_bytes = 0, high_bytes = 0;
    if (__builtin_mul_overflow(low, size, &low_bytes) || __builtin_mul_overflow(high + 1, size, &high_bytes))
        return false;
    return !__builtin_add_overflow(t.device_ptr, low_bytes, &first) &&
           !__builtin_add_overflow(t.device_ptr, high_bytes, &end) && first < end;
}

}  // namespace

// Every tensor operand must lie inside one live allocation of this device, as a copy's range
// must: a freed pointer (which the caching allocator may still hold at the GPU) is refused.
cbError_t device_context::check_tensor_operands(const char* name, const cbKernelArg* args, size_t count) {
    // After a reset the operands' memory is gone: say that, not that they were never allocated.
    if (const cbError_t e = sticky(); e != cbSuccess) return set_last_error(e, sticky_text());
    if (memory_epoch_.load(std::memory_order_relaxed) != dev_->memory_epoch()) return memory_dropped();
    for (size_t i = 0; i < count; ++i) {
        if (args[i].type != CB_ARG_BYTES || args[i].size != sizeof(cb_tensor_desc) || !args[i].value.bytes) continue;
        cb_tensor_desc t;
        std::memcpy(&t, args[i].value.bytes, sizeof t);
        uint64_t first = 0, end = 0;
        if (!tensor_span(t, first, end)) continue;
        if (!is_device_range(first, end - first))
            return set_last_error(cbErrorInvalidValue, std::string("cbLaunchBuiltin ") + name + ": operand " +
                                                           std::to_string(i) +
                                                           " is not inside one live allocation "
                                                           "(freed, or never allocated on this device)");
    }
    return cbSuccess;
}

cbError_t device_context::launch_builtin(const char* name, cb_dtype dtype, const cbKernelArg* args, size_t count,
                                         cbStream_st* s) {
    if (!name || (count && !args)) return set_last_error(cbErrorInvalidValue, "cbLaunchBuiltin: NULL argument");
    if (s && !owns(s)) return set_last_error(cbErrorInvalidResourceHandle, "cbLaunchBuiltin: unknown stream");
    if (const cbError_t e = check_tensor_operands(name, args, count); e != cbSuccess) return e;
    const cb_kernel_launch l = make_launch(name, dtype, {0, 0, 0}, {0, 0, 0}, args, count, 0);
    const cbError_t e = call(name, [&](gpu_call& g) -> cb_status {
        cb_gpu_stream* ps = nullptr;
        cb_status st = prepare_stream(g, s, ps);
        return st == CB_OK ? g.t->launch_builtin(g.instance, g.handle, &l, ps) : st;
    });
    return e == cbErrorNotFound ? set_last_error(cbErrorInvalidDeviceFunction, last_error_message()) : e;
}

cbError_t device_context::module_load(cbModule_st** out, const void* image, size_t size, cb_module_format format) {
    if (!out || !image || size == 0)
        return set_last_error(cbErrorInvalidValue, "cbModuleLoadData: NULL image or size 0");
    auto m = std::make_unique<cbModule_st>();
    m->format = format;
    if (format == CB_MODULE_HOST_KERNELS) {
        const auto* module = static_cast<const cb_host_kernel_module*>(image);
        if (size < sizeof(cb_host_kernel_module) || module->struct_size < sizeof(cb_host_kernel_module))
            return set_last_error(cbErrorInvalidKernelImage, "cbModuleLoadData: not a cb_host_kernel_module");
        for (size_t i = 0; i < module->kernel_count && module->kernels; ++i)
            if (module->kernels[i].name) m->names.emplace_back(module->kernels[i].name);
    }
    char log[4096] = {};
    const cbError_t e = call("cbModuleLoadData", [&](gpu_call& g) -> cb_status {
        const cb_status st = g.t->module_load(g.instance, g.handle, image, size, format, &m->handle, log, sizeof log);
        if (st != CB_OK && log[0]) core::set_last_error(core::last_error() + "\n" + log);
        return st;
    });
    if (e == cbErrorNotSupported) dev().report_module_refused(last_error_message());
    if (e != cbSuccess)
        return e == cbErrorInvalidValue ? set_last_error(cbErrorInvalidKernelImage, last_error_message()) : e;
    std::lock_guard lock(objects_mutex_);
    *out = m.get();
    modules_.push_back(m.release());
    return cbSuccess;
}

cbError_t device_context::module_unload(cbModule_st* m) {
    if (!m || !owns(m)) return set_last_error(cbErrorInvalidResourceHandle, "cbModuleUnload: unknown module");
    const cbError_t e = call("cbModuleUnload", [&](gpu_call& g) -> cb_status {
        return m->handle ? g.t->module_unload(g.instance, m->handle) : CB_OK;
    });
    {
        std::lock_guard lock(objects_mutex_);
        std::erase(modules_, m);
        module_globals_.fetch_sub(m->globals.size(), std::memory_order_release);
    }
    delete m;
    return e;
}

cbError_t device_context::module_global(cbModule_st* m, const char* name, void** address, size_t* bytes) {
    if (!m || !owns(m)) return set_last_error(cbErrorInvalidResourceHandle, "cbModuleGetGlobal: unknown module");
    if (!name) return set_last_error(cbErrorInvalidValue, "cbModuleGetGlobal: NULL name");
    uint64_t at = 0, size = 0;
    const cbError_t e = call("cbModuleGetGlobal", [&](gpu_call& g) -> cb_status {
        if (!CB_HAS_FIELD(g.t, cb_gpu_table, module_global)) {
            core::set_last_error("the GPU family predates module variables (ABI 1.8)");
            return CB_ERR_UNSUPPORTED;
        }
        return g.t->module_global(g.instance, m->handle, name, &at, &size);
    });
    if (e != cbSuccess) return e;
    {
        std::lock_guard lock(objects_mutex_);
        if (m->globals.emplace(at, size).second) module_globals_.fetch_add(1, std::memory_order_release);
    }
    if (address) *address = reinterpret_cast<void*>(static_cast<uintptr_t>(at));
    if (bytes) *bytes = static_cast<size_t>(size);
    return cbSuccess;
}

cbError_t device_context::kernel_param_info(cbModule_st* m, const char* name, size_t index, size_t* offset,
                                            size_t* size) {
    if (!m || !owns(m)) return set_last_error(cbErrorInvalidResourceHandle, "cbModuleGetParamInfo: unknown module");
    if (!name) return set_last_error(cbErrorInvalidValue, "cbModuleGetParamInfo: NULL name");
    if (index > UINT32_MAX) return set_last_error(cbErrorInvalidValue, "cbModuleGetParamInfo: no such parameter");
    uint64_t at = 0, bytes = 0;
    const cbError_t e = call("cbModuleGetParamInfo", [&](gpu_call& g) -> cb_status {
        if (!CB_HAS_FIELD(g.t, cb_gpu_table, kernel_param_info)) {
            core::set_last_error("the GPU family cannot tell a kernel's parameters (it predates ABI 1.14)");
            return CB_ERR_UNSUPPORTED;
        }
        return g.t->kernel_param_info(g.instance, m->handle, name, static_cast<uint32_t>(index), &at, &bytes);
    });
    if (e != cbSuccess) return e;
    if (offset) *offset = static_cast<size_t>(at);
    if (size) *size = static_cast<size_t>(bytes);
    return cbSuccess;
}

cbError_t device_context::launch_kernel(cbModule_st* m, const char* name, cbDim3 grid, cbDim3 block,
                                        const cbKernelArg* args, size_t count, size_t shared_memory, cbStream_st* s,
                                        void* const* kernel_params, uint32_t flags) {
    if (kernel_params) args = nullptr, count = 0;
    if (!name || (count && !args)) return set_last_error(cbErrorInvalidValue, "cbLaunchKernel: NULL argument");
    if (s && !owns(s)) return set_last_error(cbErrorInvalidResourceHandle, "cbLaunchKernel: unknown stream");
    if (m && !owns(m)) return set_last_error(cbErrorInvalidResourceHandle, "cbLaunchKernel: unknown module");
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
        return set_last_error(cbErrorInvalidValue,
                              std::string("cbLaunchKernel ") + name + ": a grid or block dimension is 0");
    std::vector<cbModule_st*> candidates;
    if (m) {
        candidates.push_back(m);
    } else {
        std::lock_guard lock(objects_mutex_);
        candidates.assign(modules_.rbegin(), modules_.rend());
    }
    if (candidates.empty())
        return set_last_error(cbErrorInvalidDeviceFunction,
                              std::string("cbLaunchKernel: no module is loaded on this device, so no kernel '") + name +
                                  "' (built-in kernels are launched with cbLaunchBuiltin)");
    cb_kernel_launch l = make_launch(name, 0, grid, block, args, count, shared_memory, kernel_params);
    l.stack_bytes = stack_bytes_.load(std::memory_order_relaxed);
    l.heap_bytes = heap_bytes_.load(std::memory_order_relaxed);
    l.flags = flags;
    for (auto* candidate : candidates) {
        // A host-kernel module says which symbols it has; others are asked.
        if (!candidate->names.empty() &&
            std::find(candidate->names.begin(), candidate->names.end(), name) == candidate->names.end())
            continue;
        const cbError_t e = call(name, [&](gpu_call& g) -> cb_status {
            cb_gpu_stream* ps = nullptr;
            cb_status st = prepare_stream(g, s, ps);
            return st == CB_OK ? g.t->launch_kernel(g.instance, candidate->handle, &l, ps) : st;
        });
        if (e != cbErrorNotFound) return e;
    }
    return set_last_error(cbErrorInvalidDeviceFunction,
                          std::string("cbLaunchKernel: no loaded module has a kernel named '") + name + "'");
}

cbError_t device_context::reset() {
    const device_state st = dev_->state();
    if (st == device_state::failed || st == device_state::lost || st == device_state::emergency_stop ||
        dev_->held_by_safety_policy()) {
        if (dev_->manual_reset(true) != CB_OK)
            return set_last_error(cbErrorDeviceFailed, "cbDeviceReset: " + core::last_error());
    }
    host::device::ticket ticket;
    const cb_status entered = dev_->enter(ticket);
    if (entered != CB_OK) return set_last_error(to_runtime_error(entered), "cbDeviceReset: " + core::last_error());
    gpu_call g{dev_->gpu(), dev_->gpu_instance(), ticket.handle()};
    g.t->device_synchronize(g.instance, g.handle);
    stop_watching();         // its markers go with the events below
    std::string unanswered;  // a fresh view of a device another process reset that did not open
    {
        // Free everything this process holds on the device, as cudaDeviceReset does.
        ticket = {};
        std::unique_lock exclusive(dev_->impl().gate);
        release(memory_epoch_.load() == dev_->memory_epoch());
        if (dev_->impl().view_stale.exchange(false) && dev_->impl().reopen_gpu(unanswered) != CB_OK)
            unanswered = "the device was reset by another process and does not answer here: " + unanswered;
        std::lock_guard lock(objects_mutex_);
        delete_objects();
        opened_memory_.clear();
        shared_allocations_.clear();
        opened_count_.store(0, std::memory_order_release);
        module_globals_.store(0, std::memory_order_release);
        default_stream_->waited.clear();
        default_stream_->submitted = 0;
    }
    if (!unanswered.empty()) return set_last_error(cbErrorDeviceLost, "cbDeviceReset: " + unanswered);
    memory_epoch_ = dev_->memory_epoch();
    clear_sticky();
    return call("cbDeviceReset", [&](gpu_call& g2) -> cb_status { return create_default_stream(g2); });
}

}  // namespace cudabridge::host

#include "sim/device_model/host_kernel_execution.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

namespace cudabridge::nv {
namespace {

// The arguments as the kernel sees them: the launched values (CB_ARG_BYTES pointing into the
// decoded block) and, per device pointer, its host address and bytes to the end of its allocation.
struct prepared_arguments {
    std::vector<cb_kernel_arg> args;
    std::vector<cb_host_kernel_buffer> buffers;
};

command_result prepare(const host_kernel_launch& l, const std::string& name, const vram& memory,
                       prepared_arguments& out) {
    out.args.assign(l.args.size(), cb_kernel_arg{});
    out.buffers.assign(l.args.size(), cb_host_kernel_buffer{});
    for (size_t i = 0; i < l.args.size(); ++i) {
        const host_kernel_arg& a = l.args[i];
        cb_kernel_arg& arg = out.args[i];
        arg.type = a.type;
        if (a.type == CB_ARG_BYTES) {
            arg.size = a.size;
            arg.value.bytes = l.payload.data() + a.value;
            continue;
        }
        std::memcpy(&arg.value, &a.value, sizeof a.value);
        if (a.type != CB_ARG_DEVICE_PTR || a.span == 0) continue;  // a scalar, or a null pointer
        uint8_t* data = memory.at_offset(a.vram_offset, a.span);
        if (data == nullptr)
            return command_result::failure(CB_ERR_INVALID_ARGUMENT, xid_mmu_fault,
                                           "host kernel '" + name + "': argument " + std::to_string(i) +
                                               ": VRAM offset " + std::to_string(a.vram_offset) + " + " +
                                               std::to_string(a.span) + " bytes is outside VRAM");
        out.buffers[i] = cb_host_kernel_buffer{data, a.span};
    }
    return command_result::success();
}

// The first block that failed, shared by the engine's threads.
struct first_failure {
    std::atomic<bool> stop{false};
    std::mutex mutex;
    cb_status returned = CB_OK;
    uint64_t block = 0;
    bool aborted = false;

    void record(cb_status st, uint64_t index) {
        std::lock_guard lock(mutex);
        if (returned == CB_OK && !aborted) {
            returned = st;
            block = index;
        }
        stop.store(true);
    }
    void abort() {
        std::lock_guard lock(mutex);
        aborted = true;
        stop.store(true);
    }
};

cb_status call_kernel(cb_host_kernel_fn fn, const cb_host_kernel_call& call) noexcept {
    try {
        return fn(&call);
    } catch (...) {
        return CB_ERR_INTERNAL;  // a C++ kernel's exception must not unwind through the device
    }
}

}  // namespace

command_result run_host_kernel(const host_kernel_launch& l, const host_kernel_entry& kernel, const vram& memory,
                               kernels::engine& engine, const abort_check& abort) {
    prepared_arguments prepared;
    if (command_result r = prepare(l, kernel.name, memory, prepared); !r.ok()) return r;
    cb_host_kernel_call base{};
    base.struct_size = sizeof base;
    std::memcpy(base.grid, l.grid, sizeof base.grid);
    std::memcpy(base.block, l.block, sizeof base.block);
    base.args = prepared.args.data();
    base.buffers = prepared.buffers.data();
    base.arg_count = prepared.args.size();

    first_failure failure;
    const uint64_t gx = l.grid[0], gxy = gx * l.grid[1];
    engine.parallel_for(static_cast<int64_t>(l.block_count()), 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end && !failure.stop.load(std::memory_order_relaxed); ++i) {
            if (abort && abort()) return failure.abort();
            const auto index = static_cast<uint64_t>(i);
            cb_host_kernel_call call = base;
            call.block_index[0] = static_cast<uint32_t>(index % gx);
            call.block_index[1] = static_cast<uint32_t>((index / gx) % l.grid[1]);
            call.block_index[2] = static_cast<uint32_t>(index / gxy);
            if (cb_status st = call_kernel(kernel.fn, call); st != CB_OK) failure.record(st, index);
        }
    });
    if (failure.aborted)
        return command_result::failure(CB_ERR_DEVICE_LOST, 0,
                                       "host kernel '" + kernel.name + "': abandoned by a reset");
    if (failure.returned != CB_OK)
        return command_result::kernel_fault(failure.returned, "host kernel '" + kernel.name + "' returned status " +
                                                                  std::to_string(failure.returned) + " in block " +
                                                                  std::to_string(failure.block));
    return command_result::success();
}

}  // namespace cudabridge::nv

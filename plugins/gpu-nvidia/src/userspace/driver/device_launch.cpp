// userspace_device: built-in kernel launches. The call is parsed and checked on the host, then
// its launch block travels by DMA from the launch block arena, mapped once at init, whose bytes
// come back when the command completes (queue_launch_block, which host-kernel launches share;
// small copies from pageable memory are staged there too, device_memory.cpp).
#include "userspace/driver/userspace_device.hpp"

#include "userspace/driver/device_objects.hpp"
#include "userspace/driver/status_text.hpp"

#include "common/hw/registers.hpp"
#include "common/launch/builtin_call.hpp"

#include <cstring>

namespace cudabridge::nv {

namespace {

// The device bytes tensor `t` touches, as [first, end); false for an empty tensor.
bool device_bytes(const cb_tensor_desc& t, uint64_t& first, uint64_t& end) {
    int64_t lo = 0, hi = 0;
    if (!tensor_extent(t, lo, hi)) return false;
    // The builtins compute in infinite precision: a range below 0 or past 2^64 overflows.
    if (__builtin_add_overflow(t.device_ptr, lo, &first) || __builtin_add_overflow(t.device_ptr, hi, &end))
        first = end = 0;  // no allocation holds it
    return true;
}

}  // namespace

cb_status userspace_device::launch_builtin(const cb_kernel_launch& launch, userspace_stream* stream,
                                           std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;

    builtin_call call;
    if (cb_status st = parse_builtin(launch, call, error); st != CB_OK) return st;
    const std::string name = launch.name ? launch.name : "";
    for (size_t i = 0; i < call.tensors.size(); ++i) {
        uint64_t first = 0, end = 0;
        if (!device_bytes(call.tensors[i], first, end)) continue;  // touches nothing
        vram_block block;
        if (end == 0 || !vram_->find(first, block) || end > block.address + block.size) {
            error = "launch_builtin " + name + ": tensor operand " + std::to_string(i) + " touches device bytes [" +
                    hex(first) + ", " + hex(end) + ") outside any live allocation";
            return CB_ERR_INVALID_ARGUMENT;
        }
    }

    auto sink = s ? s->errors : std::make_shared<error_sink>();
    uint64_t fence = 0;
    if (cb_status st = queue_launch_block(hw::opcode::launch, encode(call), "launch " + name, sink, fence, error);
        st != CB_OK)
        return st;
    return finish_submission(s, fence, *sink, error);
}

// The LO read latches HI, so reads of the pair are serialized (sharing_mutex_, as for the other
// latched pairs this process reads).
cb_status userspace_device::kernel_time(uint64_t& ns, std::string& error) {
    std::shared_lock life(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    std::lock_guard lock(sharing_mutex_);
    return regs_.read64(hw::reg::kernel_time_lo, hw::reg::kernel_time_hi, ns, error);
}

cb_status userspace_device::progress(uint64_t& count, std::string& error) {
    std::shared_lock life(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    return tracker_.read_progress(count, error);
}

cb_status userspace_device::kernel_running(uint64_t& ms, std::string& error) {
    std::shared_lock life(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    uint32_t value = 0;
    const cb_status st = regs_.read(hw::reg::kernel_running_ms, value, error);
    ms = value;
    return st;
}

cb_status userspace_device::queue_launch_block(hw::opcode op, const std::vector<uint8_t>& block,
                                               const std::string& what, std::shared_ptr<error_sink> sink,
                                               uint64_t& fence, std::string& error) {
    hw::command cmd{};
    cmd.op = op;
    cmd.c = block.size();
    return queue_from_arena(cmd, block.data(), block.size(), what, std::move(sink), fence, error);
}

cb_status userspace_device::queue_from_arena(hw::command cmd, const void* bytes, size_t size, const std::string& what,
                                             std::shared_ptr<error_sink> sink, uint64_t& fence, std::string& error) {
    // Held from reserving the bytes to committing them to the fence, so reservations follow
    // fence order.
    std::lock_guard lock(launch_mutex_);
    if (!arena_.ready()) {
        error = what + ": the device is not initialized (no launch block arena)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (size > arena_.capacity()) {
        error = what + ": a launch block of " + std::to_string(size) + " bytes does not fit the " +
                std::to_string(arena_.capacity()) + "-byte launch block arena";
        return CB_ERR_INVALID_ARGUMENT;
    }
    arena_slot slot;
    while (!arena_.reserve(size, tracker_.completed_hint(), slot)) {
        // Every byte is read by queued commands: wait for the oldest (there is one: an empty
        // arena holds any block that fits its capacity).
        if (cb_status st = tracker_.wait_fence(arena_.oldest_fence(), error); st != CB_OK) return st;
    }
    std::memcpy(slot.data, bytes, size);
    cmd.a = slot.iova;
    if (cb_status st = ring_.submit(cmd, std::move(sink), what, fence, error); st != CB_OK) return st;
    arena_.commit(slot, fence);
    return CB_OK;
}

}  // namespace cudabridge::nv

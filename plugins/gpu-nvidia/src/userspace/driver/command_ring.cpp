#include "userspace/driver/command_ring.hpp"

#include "userspace/driver/status_text.hpp"

#include "common/hw/registers.hpp"

#include <cstring>

namespace cudabridge::nv {

command_ring::command_ring(link_port& port, register_access& regs, fence_tracker& tracker, device_loss& loss)
    : port_(port), regs_(regs), tracker_(tracker), loss_(loss) {}

cb_status command_ring::create(uint32_t entries, uint64_t page_size, std::string& error) {
    std::lock_guard lock(submit_mutex_);
    if (entries < 2 || entries > 65536 || (entries & (entries - 1)) != 0) {
        error = "ring_entries must be a power of two within 2..65536 (got " + std::to_string(entries) + ")";
        return CB_ERR_INVALID_ARGUMENT;
    }
    const size_t bytes = size_t{entries} * sizeof(hw::command);
    host_buffer memory(bytes, page_size);
    if (memory.empty()) {
        error = "cannot allocate the command ring (" + std::to_string(bytes) + " bytes)";
        return CB_ERR_OUT_OF_MEMORY;
    }
    dma_mapping mapping;
    if (cb_status st =
            dma_mapping::map(port_, memory.data(), bytes, CB_DMA_TO_DEVICE, "the command ring", mapping, error);
        st != CB_OK)
        return st;
    mapping_ = std::move(mapping);
    memory_ = std::move(memory);
    entries_ = entries;
    return CB_OK;
}

cb_status command_ring::start(std::string& error) {
    std::lock_guard lock(submit_mutex_);
    return start_locked(error);
}

cb_status command_ring::start_locked(std::string& error) {
    if (!mapping_.mapped()) {
        error = "the command ring is not allocated";
        return CB_ERR_INTERNAL;
    }
    std::memset(memory_.data(), 0, memory_.size());
    put_ = 0;
    get_ = 0;
    tracker_.take_ring_lost();  // a fresh ring: a loss seen before is over
    if (cb_status st = regs_.write64(hw::reg::ring_base_lo, hw::reg::ring_base_hi, mapping_.iova(), error); st != CB_OK)
        return st;
    if (cb_status st = regs_.write(hw::reg::ring_entries, entries_, error); st != CB_OK) return st;
    if (cb_status st = regs_.write(hw::reg::ring_control, 1, error); st != CB_OK) return st;
    uint32_t status = 0;
    if (cb_status st = regs_.read_sane(hw::reg::status, status, error); st != CB_OK) return st;
    if ((status & hw::status_ring_on) == 0) {
        error = "the device did not enable the command ring (status " + hex(status, 8) + ", ring at IOVA " +
                hex(mapping_.iova()) + ", " + std::to_string(entries_) + " entries)";
        return CB_ERR_INTERNAL;
    }
    return CB_OK;
}

cb_status command_ring::stop(std::string& error) {
    std::lock_guard lock(submit_mutex_);
    return regs_.write(hw::reg::ring_control, 0, error);
}

cb_status command_ring::wait_until_idle(const std::string& after, std::string& error) {
    auto idle = [&](std::string& message) -> cb_status {
        uint32_t status = 0;
        if (cb_status st = regs_.read_sane(hw::reg::status, status, message); st != CB_OK) return st;
        return (status & hw::status_busy) ? CB_ERR_BUSY : CB_OK;
    };
    return tracker_.wait_until(
        idle, [&] { return "the command engine to go idle after the " + after; }, error);
}

void command_ring::release() {
    std::lock_guard lock(submit_mutex_);
    mapping_.release();
    memory_ = host_buffer();
    entries_ = 0;
}

cb_status command_ring::wait_for_space(std::string& error) {
    auto has_space = [&](std::string& message) -> cb_status {
        uint32_t get = 0;
        if (cb_status st = regs_.read_sane(hw::reg::ring_get, get, message); st != CB_OK) return st;
        if (get >= entries_) {
            message = "the device reports ring GET " + std::to_string(get) + " outside a ring of " +
                      std::to_string(entries_) + " entries";
            return CB_ERR_INTERNAL;
        }
        get_ = get;
        const uint32_t used = (put_ - get_) & (entries_ - 1);
        return used + 1 < entries_ ? CB_OK : CB_ERR_BUSY;
    };
    if ((((put_ - get_) & (entries_ - 1)) + 1) < entries_) return CB_OK;  // room by the last GET read
    return tracker_.wait_until(
        has_space,
        [&] { return "room in the command ring (PUT " + std::to_string(put_) + ", GET " + std::to_string(get_) + ")"; },
        error);
}

cb_status command_ring::submit(hw::command cmd, std::shared_ptr<error_sink> sink, std::string what, uint64_t& fence,
                               std::string& error) {
    std::lock_guard lock(submit_mutex_);
    if (loss_.lost()) {
        error = loss_.reason();
        return loss_.status();
    }
    if (!mapping_.mapped()) {
        error = "the device is not initialized (no command ring)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    // The device turned the ring off (a fetch across a dropped link failed): what was queued has
    // been failed to its owners; new work gets a fresh ring, as a driver re-creates a channel.
    if (tracker_.take_ring_lost())
        if (cb_status st = start_locked(error); st != CB_OK) return st;
    if (cb_status st = wait_for_space(error); st != CB_OK) return st;
    fence = tracker_.submitted() + 1;
    cmd.fence = fence;
    cmd.flags |= hw::flag_fence | hw::flag_interrupt;
    tracker_.track(fence, std::move(sink), std::move(what));
    std::memcpy(memory_.data() + size_t{put_} * sizeof(hw::command), &cmd, sizeof cmd);
    // The transport's MMIO write orders the slot's stores before the doorbell (as writel does).
    put_ = (put_ + 1) & (entries_ - 1);
    if (cb_status st = regs_.write(hw::reg::ring_put, put_, error); st != CB_OK) {
        // The doorbell did not reach the device: the command will never complete.
        tracker_.abandon_through(fence, st, error);
        return st;
    }
    return CB_OK;
}

}  // namespace cudabridge::nv

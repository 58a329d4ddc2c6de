// The command ring in host memory: `entries` 64-byte hw::command slots, allocated page-aligned
// and mapped for the device once. Submission writes the next slot, gives it the next fence (one
// more than any before, under a mutex, so fences increase in ring order) and rings the doorbell
// (reg::ring_put). When the ring is full it waits for the device's GET with the fence tracker's
// wait loop. One slot stays empty, so PUT == GET always means "empty".
#pragma once

#include "userspace/driver/device_loss.hpp"
#include "userspace/driver/dma_mapping.hpp"
#include "userspace/driver/error_sink.hpp"
#include "userspace/driver/fence_tracker.hpp"
#include "userspace/driver/host_buffer.hpp"
#include "userspace/driver/link_port.hpp"
#include "userspace/driver/register_access.hpp"

#include "common/hw/commands.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace cudabridge::nv {

class command_ring {
public:
    command_ring(link_port& port, register_access& regs, fence_tracker& tracker, device_loss& loss);

    // Allocates and maps the ring. `entries`: a power of two, 2..65536.
    cb_status create(uint32_t entries, uint64_t page_size, std::string& error);
    // Programs base and size and enables the ring; the device starts at slot 0 (after a reset).
    cb_status start(std::string& error);
    // Disables the ring (close).
    cb_status stop(std::string& error);
    // Waits until the device reports its command engine idle (status_busy clear). After a reset
    // or stop() the engine finishes the command in flight first, reading the ring and the host
    // buffers it copies: neither may be rewritten or freed before. `after` names the cause.
    cb_status wait_until_idle(const std::string& after, std::string& error);
    // Unmaps and frees the ring.
    void release();

    // Queues `cmd` with the next fence and flag_fence | flag_interrupt; its failure goes to
    // `sink` (may be null) described as `what`. `fence` receives the command's fence.
    cb_status submit(hw::command cmd, std::shared_ptr<error_sink> sink, std::string what, uint64_t& fence,
                     std::string& error);

    uint32_t entries() const noexcept { return entries_; }

private:
    cb_status wait_for_space(std::string& error);  // submit_mutex_ held
    cb_status start_locked(std::string& error);    // submit_mutex_ held

    link_port& port_;
    register_access& regs_;
    fence_tracker& tracker_;
    device_loss& loss_;

    std::mutex submit_mutex_;
    host_buffer memory_;
    dma_mapping mapping_;
    uint32_t entries_ = 0;
    uint32_t put_ = 0;  // next slot the driver writes
    uint32_t get_ = 0;  // last GET read back
};

}  // namespace cudabridge::nv

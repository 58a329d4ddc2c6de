// userspace_device: built-in kernel launches. The call is parsed and checked on the host, then
// its launch block travels by DMA from a host buffer kept mapped until the command completes
// (queue_launch_block, which host-kernel launches share).
#include "userspace/userspace_device.hpp"

#include "userspace/device_objects.hpp"
#include "userspace/status_text.hpp"

#include "launch/builtin_call.hpp"

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
    if (kernels::status parsed = parse_builtin(launch, call); !parsed.ok()) {
        error = parsed.message;
        return parsed.code;
    }
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

cb_status userspace_device::queue_launch_block(hw::opcode op, const std::vector<uint8_t>& block,
                                               const std::string& what, std::shared_ptr<error_sink> sink,
                                               uint64_t& fence, std::string& error) {
    held_resources held;
    tracker_.recycle_completed_blocks();
    if (auto spare = tracker_.take_spare(block.size())) {
        held = std::move(*spare);  // a completed launch's block, still mapped
    } else if (cb_status st = new_launch_block(block.size(), held, error); st != CB_OK) {
        error = what + ": " + error;
        return st;
    }
    std::memcpy(held.buffer.data(), block.data(), block.size());
    hw::command cmd{};
    cmd.op = op;
    cmd.a = held.mapping.iova();
    cmd.c = block.size();
    if (cb_status st = ring_.submit(cmd, std::move(sink), what, fence, error); st != CB_OK) return st;
    tracker_.hold_until(fence, std::move(held));
    return CB_OK;
}

cb_status userspace_device::new_launch_block(size_t size, held_resources& held, std::string& error) {
    // Whole pages, so a spare fits the next launches whatever their size.
    const size_t rounded = (size + page_size_ - 1) / page_size_ * page_size_;
    held.buffer = host_buffer(rounded, page_size_);
    if (held.buffer.empty()) {
        error = "cannot allocate the launch block";
        return CB_ERR_OUT_OF_MEMORY;
    }
    // Blocks of earlier launches stay mapped until a check sees them complete: when the IOMMU is
    // full, give back the spares, then wait for the oldest block before giving up.
    bool spares_dropped = false;
    for (;;) {
        std::string why;
        const cb_status st = dma_mapping::map(port_, held.buffer.data(), rounded, CB_DMA_TO_DEVICE,
                                              "a launch block", held.mapping, why);
        if (st == CB_OK) {
            launch_blocks_mapped_.fetch_add(1);
            return CB_OK;
        }
        if (st == CB_ERR_DMA_LIMIT && !spares_dropped) {
            tracker_.drop_spares();
            spares_dropped = true;
            continue;
        }
        std::string wait_error;
        const cb_status waited = st == CB_ERR_DMA_LIMIT ? tracker_.wait_for_oldest_held(wait_error) : CB_ERR_NOT_FOUND;
        if (waited == CB_ERR_NOT_FOUND) {
            error = why;
            return st;
        }
        if (waited != CB_OK) {
            error = wait_error;
            return waited;
        }
    }
}

}  // namespace cudabridge::nv

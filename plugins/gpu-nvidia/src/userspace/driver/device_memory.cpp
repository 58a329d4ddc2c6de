// userspace_device: VRAM allocation and copies. Host copies map the caller's memory directly,
// chunk by chunk, double-buffered inside the IOMMU's limits — unless a pinned registration holds
// the whole host range (device_pinned.cpp): then it is one command through that mapping.
#include "userspace/driver/userspace_device.hpp"

#include "userspace/driver/chunk_plan.hpp"
#include "userspace/driver/device_objects.hpp"
#include "userspace/driver/status_text.hpp"

#include <algorithm>
#include <deque>

namespace cudabridge::nv {

// ---- allocation --------------------------------------------------------------------------------

cb_status userspace_device::mem_alloc(uint64_t size, uint64_t& out_ptr, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (size == 0) {
        error = "mem_alloc: size 0";
        return CB_ERR_INVALID_ARGUMENT;
    }
    cb_status st = vram_->allocate(size, out_ptr);
    if (st == CB_OK) {
        vram_block block;
        vram_->find(out_ptr, block);
        if (st = reserve_memory(block.size, error); st != CB_OK) {
            vram_->free(out_ptr);
            return loss_.lost() ? lost_status(error) : st;
        }
    } else if (st == CB_ERR_OUT_OF_MEMORY) {
        const vram_stats s = vram_->stats();
        error = "mem_alloc: out of device memory: " + std::to_string(size) + " bytes asked, " + std::to_string(s.free) +
                " of " + std::to_string(s.total) + " free (largest free block " + std::to_string(s.largest_free_block) +
                ")";
    } else if (st != CB_OK) {
        error = "mem_alloc: " + std::to_string(size) + " bytes refused: " + status_name(st);
    }
    return st;
}

cb_status userspace_device::mem_free(uint64_t ptr, std::string& error) {
    if (cb_status st = CB_OK; free_managed(ptr, st, error)) return st;
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (ptr == 0) return CB_OK;  // freeing null does nothing, as in CUDA
    if (cb_status st = CB_OK; free_opened_locked(ptr, st)) return st;
    vram_block block;
    const bool found = vram_->find(ptr, block) && block.address == ptr;
    if (found) unshare_locked(block.address);
    if (cb_status st = vram_->free(ptr); st != CB_OK || !found) {
        error = "mem_free: " + hex(ptr) + " is not the start of a live allocation";
        return st != CB_OK ? st : CB_ERR_INVALID_ARGUMENT;
    }
    release_memory(block.size);
    return CB_OK;
}

cb_status userspace_device::mem_host_address(uint64_t ptr, uint64_t size, void*& host, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (size == 0) {
        error = "mem_host_address: size 0";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (cb_status st = check_device_range(ptr, size, "mem_host_address", error); st != CB_OK) return st;
    const cb_status st = port_.bar_map(1, ptr - vram_base_, size, host);
    if (st == CB_ERR_UNSUPPORTED) {
        error = "mem_host_address: the link cannot map the GPU's BAR1 aperture for the host";
    } else if (st == CB_ERR_INVALID_ARGUMENT) {
        cb_bar_info bar{};
        port_.bar_info(1, bar);
        error = "mem_host_address: device range [" + hex(ptr) + ", +" + std::to_string(size) +
                ") lies past the end of the BAR1 aperture (" + std::to_string(bar.size >> 20) +
                " MiB; a board without resizable BAR shows only the start of VRAM)";
        return CB_ERR_UNSUPPORTED;
    } else if (st != CB_OK) {
        error = "mem_host_address: mapping BAR1 failed";
    }
    return st;
}

cb_status userspace_device::mem_info(uint64_t& out_free, uint64_t& out_total, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    const vram_stats s = vram_->stats();
    uint64_t used = 0;
    if (cb_status st = device_memory_used(used, error); st != CB_OK) return loss_.lost() ? lost_status(error) : st;
    out_free = std::min(s.free, s.total - std::min(s.total, used));  // other processes' memory is not free
    out_total = s.total;
    return CB_OK;
}

vram_stats userspace_device::memory_stats() const {
    std::shared_lock lock(lifecycle_);
    return vram_ ? vram_->stats() : vram_stats{};
}

cb_status userspace_device::check_device_range(uint64_t address, uint64_t size, const char* what,
                                               std::string& error) const {
    vram_block block;
    if (vram_->find(address, block) && address + size >= address && address + size <= block.address + block.size)
        return CB_OK;
    error = std::string(what) + ": device range [" + hex(address) + ", +" + std::to_string(size) +
            ") is not inside one live allocation";
    return CB_ERR_INVALID_ARGUMENT;
}

// ---- commands ----------------------------------------------------------------------------------

cb_status userspace_device::wait_and_collect(uint64_t fence, error_sink& sink, std::string& error) {
    if (cb_status st = tracker_.wait_fence(fence, error); st != CB_OK) return st;
    std::string message;
    if (cb_status st = sink.take(message); st != CB_OK) {
        error = message;
        return st;
    }
    return CB_OK;
}

cb_status userspace_device::finish_submission(const std::shared_ptr<userspace_stream>& s, uint64_t fence,
                                              error_sink& sink, std::string& error) {
    if (s) {
        raise_to(s->last_fence, fence);
        return CB_OK;
    }
    return wait_and_collect(fence, sink, error);
}

cb_status userspace_device::device_command(const hw::command& cmd, const char* what, userspace_stream* stream,
                                           std::string& error) {
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    auto sink = s ? s->errors : std::make_shared<error_sink>();
    uint64_t fence = 0;
    if (cb_status st = ring_.submit(cmd, sink, what, fence, error); st != CB_OK) return st;
    return finish_submission(s, fence, *sink, error);
}

// ---- copies ------------------------------------------------------------------------------------

cb_status userspace_device::memcpy_h2d(uint64_t dst, const void* src, size_t size, userspace_stream* stream,
                                       std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (size == 0) return CB_OK;
    if (src == nullptr) {
        error = "memcpy_h2d: null host pointer";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (cb_status st = check_device_range(dst, size, "memcpy_h2d", error); st != CB_OK) return st;
    auto* host = static_cast<std::byte*>(const_cast<void*>(src));
    bool pinned = false;
    if (cb_status st = pinned_copy(host_direction::to_device, dst, host, size, stream, pinned, error);
        pinned || st != CB_OK)
        return st;
    if (stream != nullptr && size <= staged_copy_limit()) return staged_h2d(dst, host, size, stream, error);
    return host_copy(host_direction::to_device, dst, host, size, stream, error);
}

// Up to 64 KiB (CUDA's pageable copies of that size return once staged), and a quarter of the
// arena so that launches queued behind a few copies still find room.
size_t userspace_device::staged_copy_limit() const noexcept {
    return std::min<size_t>(size_t{64} << 10, arena_.capacity() / 4);
}

cb_status userspace_device::staged_h2d(uint64_t dst, const std::byte* host, size_t size, userspace_stream* stream,
                                       std::string& error) {
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    auto sink = s ? s->errors : std::make_shared<error_sink>();
    hw::command cmd{};
    cmd.op = hw::opcode::copy_h2d;
    cmd.b = dst;
    cmd.c = size;
    uint64_t fence = 0;
    if (cb_status st = queue_from_arena(cmd, host, size, "copy_h2d", sink, fence, error); st != CB_OK) return st;
    return finish_submission(s, fence, *sink, error);
}

cb_status userspace_device::memcpy_d2h(void* dst, uint64_t src, size_t size, userspace_stream* stream,
                                       std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (size == 0) return CB_OK;
    if (dst == nullptr) {
        error = "memcpy_d2h: null host pointer";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (cb_status st = check_device_range(src, size, "memcpy_d2h", error); st != CB_OK) return st;
    auto* host = static_cast<std::byte*>(dst);
    bool pinned = false;
    if (cb_status st = pinned_copy(host_direction::from_device, src, host, size, stream, pinned, error);
        pinned || st != CB_OK)
        return st;
    return host_copy(host_direction::from_device, src, host, size, stream, error);
}

cb_status userspace_device::memcpy_d2d(uint64_t dst, uint64_t src, size_t size, userspace_stream* stream,
                                       std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (size == 0) return CB_OK;
    if (cb_status st = check_device_range(src, size, "memcpy_d2d (source)", error); st != CB_OK) return st;
    if (cb_status st = check_device_range(dst, size, "memcpy_d2d (destination)", error); st != CB_OK) return st;
    hw::command cmd{};
    cmd.op = hw::opcode::copy_d2d;
    cmd.a = src;
    cmd.b = dst;
    cmd.c = size;
    return device_command(cmd, "copy_d2d", stream, error);
}

cb_status userspace_device::memset8(uint64_t dst, uint8_t value, size_t size, userspace_stream* stream,
                                    std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (size == 0) return CB_OK;
    if (cb_status st = check_device_range(dst, size, "memset8", error); st != CB_OK) return st;
    hw::command cmd{};
    cmd.op = hw::opcode::memset8;
    cmd.a = dst;
    cmd.b = value;
    cmd.c = size;
    return device_command(cmd, "memset8", stream, error);
}

// One chunk of a host copy: mapped, queued, and its fence.
struct chunk_in_flight {
    dma_mapping mapping;
    uint64_t fence = 0;
};

cb_status userspace_device::host_copy(host_direction direction, uint64_t device_address, std::byte* host, size_t size,
                                      userspace_stream* stream, std::string& error) {
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    const bool to_device = direction == host_direction::to_device;
    const char* what = to_device ? "copy_h2d" : "copy_d2h";
    const cb_dma_direction dma_dir = to_device ? CB_DMA_TO_DEVICE : CB_DMA_FROM_DEVICE;

    cb_dma_limits limits{};
    if (port_.dma_limits(limits) != CB_OK) limits.max_mapped_bytes = UINT64_MAX;  // none known
    uint64_t chunk = staging_chunk_bytes(limits, options_.staging_chunk_bytes);
    const uint64_t min_chunk = std::max<uint64_t>(limits.page_size, 4096);

    auto sink = std::make_shared<error_sink>();
    std::deque<chunk_in_flight> flight;  // at most two
    // Waits for the oldest chunk, unmaps it, and reports its failure.
    auto retire_oldest = [&](std::string& message) -> cb_status {
        chunk_in_flight done = std::move(flight.front());
        flight.pop_front();
        cb_status st = wait_and_collect(done.fence, *sink, message);
        done.mapping.release();
        return st;
    };

    std::string why;
    cb_status st = CB_OK;
    uint64_t last_fence = 0;
    for (size_t offset = 0; offset < size && st == CB_OK;) {
        const size_t length = static_cast<size_t>(std::min<uint64_t>(chunk, size - offset));
        chunk_in_flight next;
        std::string map_error;
        st = dma_mapping::map(port_, host + offset, length, dma_dir, "a copy chunk", next.mapping, map_error);
        if (st == CB_ERR_DMA_LIMIT) {
            why = map_error;  // kept only if no retry succeeds
            // Someone else holds IOMMU space: free ours first, then try smaller chunks.
            if (!flight.empty()) {
                st = retire_oldest(why);
            } else if (chunk > min_chunk) {
                chunk = std::max(min_chunk, (chunk / 2) - (chunk / 2) % min_chunk);
                st = CB_OK;
            }
            continue;
        }
        if (st != CB_OK) {
            why = map_error;
            break;
        }
        hw::command cmd{};
        cmd.op = to_device ? hw::opcode::copy_h2d : hw::opcode::copy_d2h;
        cmd.a = to_device ? next.mapping.iova() : device_address + offset;
        cmd.b = to_device ? device_address + offset : next.mapping.iova();
        cmd.c = length;
        st = ring_.submit(cmd, sink, what, next.fence, why);
        if (st != CB_OK) break;
        last_fence = next.fence;
        flight.push_back(std::move(next));
        offset += length;
        if (flight.size() == 2) st = retire_oldest(why);
    }
    while (!flight.empty()) {
        if (st == CB_OK) {
            st = retire_oldest(why);
        } else {
            // Unmapping revokes the device's access, so the caller may reuse its buffer even if
            // the command still runs (it then faults instead of touching freed memory).
            flight.front().mapping.release();
            flight.pop_front();
        }
    }
    if (s && last_fence != 0) raise_to(s->last_fence, last_fence);
    if (st != CB_OK) error = why;
    return st;
}

}  // namespace cudabridge::nv

// userspace_device: pinned host memory (host_register / host_unregister, ABI 1.3). A registered
// range is mapped once for DMA in both directions; a copy whose host bytes all lie inside one is
// a single command through that mapping (asynchronous on a stream), with no per-copy mapping.
// PTX kernels on a simulated GPU reach every registered range at its own address (ABI 1.9:
// zero-copy, host_device_address); managed memory is a registered range of its own pages.
#include "userspace/driver/userspace_device.hpp"

#include "sim/modules/ptx_launch.hpp"
#include "userspace/driver/device_objects.hpp"
#include "userspace/driver/status_text.hpp"

#include <sys/mman.h>

namespace cudabridge::nv {

namespace {

std::string range_text(uintptr_t start, size_t size) { return "[" + hex(start) + ", +" + std::to_string(size) + ")"; }

// A registration sharing a byte with [start, start + size). Registrations never overlap, so only
// the last one starting at or before `start` and the first one after it can.
const pinned_range* overlapping(const std::map<uintptr_t, std::shared_ptr<pinned_range>>& pinned, uintptr_t start,
                                size_t size) {
    auto next = pinned.upper_bound(start);
    if (next != pinned.end() && next->second->start - start < size) return next->second.get();
    if (next == pinned.begin()) return nullptr;
    const pinned_range& before = *std::prev(next)->second;
    return start - before.start < before.size ? &before : nullptr;
}

}  // namespace

std::string userspace_device::iommu_budget_text(size_t asked) {
    cb_dma_limits limits{};
    if (port_.dma_limits(limits) != CB_OK) return std::to_string(asked) + " bytes do not fit in the IOMMU";
    return std::to_string(asked) + " bytes do not fit in the IOMMU's budget (the DART on Apple Silicon): " +
           std::to_string(limits.max_mapped_bytes) + " bytes mapped at once at most, " +
           std::to_string(limits.mapped_bytes) + " in use, " + std::to_string(limits.mappings) + " of " +
           std::to_string(limits.max_mappings) + " mappings; register less, or unregister ranges first";
}

std::shared_ptr<pinned_range> userspace_device::find_pinned_locked(const std::byte* host, size_t size) const {
    const auto first = reinterpret_cast<uintptr_t>(host);
    auto it = pinned_.upper_bound(first);
    if (it == pinned_.begin()) return nullptr;
    --it;
    return it->second->holds(first, size) ? it->second : nullptr;
}

cb_status userspace_device::host_register(void* ptr, size_t size, std::string& error) {
    return register_host_range(ptr, size, false, error);
}

// `must_map`: the range is useless unless the device reaches it (managed memory). Otherwise a
// range the IOMMU has no room for is still registered (the DART limits what is mapped at once,
// not what is pinned): its copies go through the staging window like pageable memory's, and
// kernels do not reach it (zero-copy) until it can be mapped.
cb_status userspace_device::register_host_range(void* ptr, size_t size, bool must_map, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    const auto start = reinterpret_cast<uintptr_t>(ptr);
    if (ptr == nullptr || size == 0 || start + size < start) {
        error = "host_register: " + range_text(start, size) + " is not a host range (NULL, empty or wrapping)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    std::unique_lock pins(pinned_mutex_);
    if (const pinned_range* r = overlapping(pinned_, start, size)) {
        error = "host_register: " + range_text(start, size) + " overlaps the registered range " +
                range_text(r->start, r->size);
        return CB_ERR_INVALID_ARGUMENT;
    }
    auto range = std::make_shared<pinned_range>();
    range->start = start;
    range->size = size;
    std::string why;
    cb_status st = dma_mapping::map(port_, ptr, size, CB_DMA_BIDIRECTIONAL, "pinned host memory", range->mapping, why);
    if (st == CB_ERR_DMA_LIMIT && !must_map) st = CB_OK;  // registered unmapped: copies are staged
    if (st == CB_ERR_DMA_LIMIT) {
        error = "host_register: " + iommu_budget_text(size);
        return st;
    }
    if (st != CB_OK) {
        error = "host_register: " + why;
        return st;
    }
    pinned_.emplace(start, std::move(range));
    return CB_OK;
}

cb_status userspace_device::host_unregister(void* ptr, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (phase_ == phase::closed) {
        error = "the device is closed (closing released every registration)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    std::shared_ptr<pinned_range> range;
    {
        std::unique_lock pins(pinned_mutex_);
        auto it = pinned_.find(reinterpret_cast<uintptr_t>(ptr));
        if (it == pinned_.end()) {
            error = "host_unregister: " + hex(reinterpret_cast<uintptr_t>(ptr)) + " does not start a registered range";
            return CB_ERR_INVALID_ARGUMENT;
        }
        range = std::move(it->second);
        pinned_.erase(it);
    }
    // No copy can reach the range any more; wait for those already queued through it.
    std::string why;
    cb_status st = CB_OK;
    if (phase_ == phase::ready && !loss_.lost()) st = tracker_.wait_fence(range->last_fence.load(), why);
    range->mapping.release();
    if (st != CB_OK && st != CB_ERR_DEVICE_LOST && st != CB_ERR_LINK_DOWN) {
        error = "host_unregister: copies queued through " + range_text(range->start, range->size) +
                " did not finish (" + why + "); unmapped anyway, so the device faults instead of touching it";
        return st;
    }
    return CB_OK;
}

cb_status userspace_device::pinned_copy(host_direction direction, uint64_t device_address, std::byte* host, size_t size,
                                        userspace_stream* stream, bool& used, std::string& error) {
    used = false;
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    auto sink = s ? s->errors : std::make_shared<error_sink>();
    uint64_t fence = 0;
    {
        std::shared_lock pins(pinned_mutex_);
        const std::shared_ptr<pinned_range> range = find_pinned_locked(host, size);
        if (!range || !range->mapping.mapped()) return CB_OK;  // unmapped: staged as pageable memory is
        used = true;
        const bool to_device = direction == host_direction::to_device;
        const uint64_t iova = range->mapping.iova() + (reinterpret_cast<uintptr_t>(host) - range->start);
        hw::command cmd{};
        cmd.op = to_device ? hw::opcode::copy_h2d : hw::opcode::copy_d2h;
        cmd.a = to_device ? iova : device_address;
        cmd.b = to_device ? device_address : iova;
        cmd.c = size;
        if (cb_status st = ring_.submit(cmd, sink, to_device ? "copy_h2d (pinned)" : "copy_d2h (pinned)", fence, error);
            st != CB_OK)
            return st;
        raise_to(range->last_fence, fence);
    }
    return finish_submission(s, fence, *sink, error);
}

void userspace_device::release_pinned_locked() {
    std::unique_lock pins(pinned_mutex_);
    for (auto& [start, range] : pinned_) range->mapping.release();
    pinned_.clear();
    for (const auto& [start, size] : managed_) munmap(reinterpret_cast<void*>(start), size);
    managed_.clear();
}

cb_status userspace_device::mem_alloc_managed(uint64_t size, uint64_t& out_ptr, std::string& error) {
    {
        std::shared_lock lock(lifecycle_);
        if (cb_status st = usable(error); st != CB_OK) return st;
        if (!runs_user_modules()) {
            error = "mem_alloc_managed: only a simulated GPU's kernels reach host memory through this driver";
            return CB_ERR_UNSUPPORTED;
        }
    }
    if (size == 0 || size > (uint64_t{1} << 46)) {
        error = "mem_alloc_managed: " + std::to_string(size) + " bytes (1 byte to 64 TiB)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    const size_t bytes = (size + page_size_ - 1) / page_size_ * page_size_;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        error = "mem_alloc_managed: the host has no " + std::to_string(bytes) + " bytes for managed memory";
        return CB_ERR_OUT_OF_MEMORY;
    }
    const auto start = reinterpret_cast<uintptr_t>(p);
    if (start < vram_base_ + vram_size_ && vram_base_ < start + bytes) {  // kernels would reach VRAM there
        munmap(p, bytes);
        error = "mem_alloc_managed: the host placed the memory at the device's VRAM addresses";
        return CB_ERR_OUT_OF_MEMORY;
    }
    if (cb_status st = register_host_range(p, bytes, true, error); st != CB_OK) {
        munmap(p, bytes);
        error = "mem_alloc_managed: " + error;
        return st;
    }
    std::unique_lock pins(pinned_mutex_);
    managed_.emplace(reinterpret_cast<uintptr_t>(p), bytes);
    out_ptr = reinterpret_cast<uintptr_t>(p);
    return CB_OK;
}

bool userspace_device::free_managed(uint64_t ptr, cb_status& st, std::string& error) {
    size_t bytes = 0;
    {
        std::unique_lock pins(pinned_mutex_);
        auto it = managed_.find(static_cast<uintptr_t>(ptr));
        if (it == managed_.end()) return false;
        bytes = it->second;
        managed_.erase(it);
    }
    // Waits for the copies and kernels queued with it, then the pages go back to the host.
    void* p = reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
    st = host_unregister(p, error);
    munmap(p, bytes);
    return true;
}

cb_status userspace_device::host_device_address(const void* ptr, uint64_t& out, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (!runs_user_modules()) {
        error = "host_device_address: only a simulated GPU's kernels reach host memory through this driver";
        return CB_ERR_UNSUPPORTED;
    }
    std::shared_lock pins(pinned_mutex_);
    const auto range = find_pinned_locked(static_cast<const std::byte*>(ptr), 1);
    if (!range) {
        error = "host_device_address: " + hex(reinterpret_cast<uintptr_t>(ptr)) + " is not in a registered host range";
        return CB_ERR_NOT_FOUND;
    }
    if (range->start < vram_base_ + vram_size_ && vram_base_ < range->start + range->size) {
        error = "host_device_address: the registered range " + range_text(range->start, range->size) +
                " lies at the device's VRAM addresses, so kernels cannot reach it at its own address";
        return CB_ERR_UNSUPPORTED;
    }
    out = reinterpret_cast<uintptr_t>(ptr);
    return CB_OK;
}

void userspace_device::add_host_windows(ptx_launch& launch) const {
    std::shared_lock pins(pinned_mutex_);
    for (const auto& [start, range] : pinned_) {
        if (launch.host_windows.size() == max_host_windows) break;  // the rest fault, never touch memory
        const bool over_vram = start < vram_base_ + vram_size_ && vram_base_ < start + range->size;
        if (!over_vram && range->mapping.mapped())
            launch.host_windows.push_back({start, range->size, range->mapping.iova()});
    }
}

void userspace_device::host_windows_used(uint64_t fence) const {
    std::shared_lock pins(pinned_mutex_);
    for (const auto& [start, range] : pinned_) raise_to(range->last_fence, fence);
}

}  // namespace cudabridge::nv

// userspace_device: pinned host memory (host_register / host_unregister, ABI 1.3). A registered
// range is mapped once for DMA in both directions; a copy whose host bytes all lie inside one is
// a single command through that mapping (asynchronous on a stream), with no per-copy mapping.
#include "userspace/driver/userspace_device.hpp"

#include "userspace/driver/device_objects.hpp"
#include "userspace/driver/status_text.hpp"

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
        if (!range) return CB_OK;
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
}

}  // namespace cudabridge::nv

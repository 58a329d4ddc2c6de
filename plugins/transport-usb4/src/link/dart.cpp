// The IOMMU model: mapping with limits, IOVA choice, translation with faults.
#include "link/dart.hpp"

#include <algorithm>
#include <iterator>

namespace cudabridge::usb4 {
namespace {

bool valid_direction(cb_dma_direction d) noexcept {
    return d == CB_DMA_TO_DEVICE || d == CB_DMA_FROM_DEVICE || d == CB_DMA_BIDIRECTIONAL;
}

// The device writing host memory needs a from-device mapping; reading needs a to-device one.
bool allows(cb_dma_direction d, bool device_writes) noexcept {
    return (d & (device_writes ? CB_DMA_FROM_DEVICE : CB_DMA_TO_DEVICE)) != 0;
}

std::string hex(uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    do {
        s.insert(s.begin(), digits[v & 0xf]);
        v >>= 4;
    } while (v != 0);
    return "0x" + s;
}

}  // namespace

iommu::iommu(const iommu_profile& profile)
    : profile_(profile), iova_(profile.iova_base, profile.iova_end, profile.page_size) {}

cb_status iommu::refuse(std::string* why, const std::string& reason) {
    ++stats_.map_failures;
    if (why) *why = reason;
    return CB_ERR_DMA_LIMIT;
}

cb_status iommu::fault(std::string* why, cb_status status, const std::string& reason) {
    ++stats_.translation_faults;
    ++(status == CB_ERR_PERMISSION ? stats_.permission_faults : stats_.unmapped_faults);
    if (why) *why = reason;
    return status;
}

cb_status iommu::map(void* host, size_t size, cb_dma_direction direction, uint64_t& out_iova, std::string* why) {
    const auto addr = reinterpret_cast<uintptr_t>(host);
    if (host == nullptr || size == 0 || !valid_direction(direction) || addr + size < addr) {
        if (why) *why = "dma map: null address, zero size, bad direction or a range that wraps";
        return CB_ERR_INVALID_ARGUMENT;
    }
    const uint64_t page = profile_.page_size;
    const uint64_t offset = addr & (page - 1);
    const uint64_t span = (offset + size + page - 1) & ~(page - 1);

    std::lock_guard lock(mutex_);
    if (exhausted_) return refuse(why, std::string(profile_.name) + " exhausted (fault injection)");
    if (stats_.mappings >= profile_.max_mappings)
        return refuse(why, std::string(profile_.name) + " holds its maximum of " +
                               std::to_string(profile_.max_mappings) + " mappings");
    if (span > profile_.max_mapped_bytes - stats_.mapped_bytes)
        return refuse(why, std::string(profile_.name) + ": mapping " + std::to_string(span) +
                               " more bytes would pass its limit of " + std::to_string(profile_.max_mapped_bytes) +
                               " mapped at once (" + std::to_string(stats_.mapped_bytes) + " in use)");
    const auto base = iova_.allocate(span);
    if (!base)
        return refuse(
            why, std::string(profile_.name) + ": no free device address range of " + std::to_string(span) + " bytes");

    mappings_.emplace(*base, mapping{*base, span, *base + offset, size, addr, direction});
    stats_.mappings += 1;
    stats_.mapped_bytes += span;
    stats_.peak_mappings = std::max(stats_.peak_mappings, stats_.mappings);
    stats_.peak_mapped_bytes = std::max(stats_.peak_mapped_bytes, stats_.mapped_bytes);
    stats_.maps += 1;
    out_iova = *base + offset;
    return CB_OK;
}

cb_status iommu::unmap(uint64_t iova, size_t size, std::string* why) {
    std::lock_guard lock(mutex_);
    const auto it = mappings_.find(iova & ~(profile_.page_size - 1));
    if (it == mappings_.end() || it->second.iova != iova || it->second.size != size) {
        if (why) *why = "dma unmap: no mapping of " + std::to_string(size) + " bytes at " + hex(iova);
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (last_hit_ == &it->second) last_hit_ = nullptr;
    iova_.release(it->second.base, it->second.span);
    stats_.mappings -= 1;
    stats_.mapped_bytes -= it->second.span;
    stats_.unmaps += 1;
    mappings_.erase(it);
    return CB_OK;
}

size_t iommu::unmap_all() {
    std::lock_guard lock(mutex_);
    const size_t n = mappings_.size();
    mappings_.clear();
    iova_.reset();
    last_hit_ = nullptr;
    stats_.mappings = 0;
    stats_.mapped_bytes = 0;
    stats_.unmaps += n;
    return n;
}

const iommu::mapping* iommu::find(uint64_t iova) {
    const auto contains = [iova](const mapping& m) { return iova >= m.iova && iova - m.iova < m.size; };
    if (last_hit_ && contains(*last_hit_)) return last_hit_;
    auto it = mappings_.upper_bound(iova);  // first mapping starting after iova
    if (it == mappings_.begin()) return nullptr;
    const mapping& m = std::prev(it)->second;
    if (!contains(m)) return nullptr;
    last_hit_ = &m;
    return last_hit_;
}

cb_status iommu::translate(uint64_t iova, size_t size, bool device_writes, std::vector<host_span>& out,
                           std::string* why) {
    out.clear();
    if (size == 0) {
        if (why) *why = "dma access of zero bytes";
        return CB_ERR_INVALID_ARGUMENT;
    }
    std::lock_guard lock(mutex_);
    if (iova + size < iova)
        return fault(why, CB_ERR_NOT_FOUND, "dma access at " + hex(iova) + " wraps the address space");
    uint64_t at = iova;
    uint64_t left = size;
    while (left != 0) {
        const mapping* m = find(at);
        if (m == nullptr) {
            out.clear();
            return fault(why, CB_ERR_NOT_FOUND,
                         "dma fault: " + hex(at) + " is not mapped (access of " + std::to_string(size) + " bytes at " +
                             hex(iova) + ")");
        }
        if (!allows(m->direction, device_writes)) {
            out.clear();
            return fault(why, CB_ERR_PERMISSION,
                         std::string("dma fault: device ") + (device_writes ? "write to" : "read of") + " a " +
                             (device_writes ? "to-device" : "from-device") + " mapping at " + hex(at));
        }
        const uint64_t n = std::min(left, m->iova + m->size - at);
        out.push_back({reinterpret_cast<std::byte*>(m->host + (at - m->iova)), n});
        at += n;
        left -= n;
    }
    return CB_OK;
}

cb_dma_limits iommu::limits() const {
    std::lock_guard lock(mutex_);
    cb_dma_limits l{};
    l.struct_size = sizeof(cb_dma_limits);
    l.max_mapped_bytes = profile_.max_mapped_bytes;
    l.max_mappings = profile_.max_mappings;
    l.page_size = profile_.page_size;
    l.mapped_bytes = stats_.mapped_bytes;
    l.mappings = stats_.mappings;
    return l;
}

dma_stats iommu::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

void iommu::set_exhausted(bool exhausted) {
    std::lock_guard lock(mutex_);
    exhausted_ = exhausted;
}

bool iommu::exhausted() const {
    std::lock_guard lock(mutex_);
    return exhausted_;
}

}  // namespace cudabridge::usb4

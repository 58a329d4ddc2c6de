#include "iova_table.hpp"

#include <algorithm>
#include <cstring>

namespace loopback {

cb_status iova_table::map(void* host, size_t size, cb_dma_direction direction, uint64_t& iova) {
    if (host == nullptr || size == 0) return CB_ERR_INVALID_ARGUMENT;
    std::lock_guard lock(mutex_);
    // Whole pages, as an IOMMU maps them, keeping the address's offset within its page.
    const uint64_t offset = reinterpret_cast<uintptr_t>(host) % page;
    iova = next_iova_ + offset;
    next_iova_ += (offset + size + page - 1) / page * page + page;  // one unmapped guard page
    mappings_[iova] = {static_cast<unsigned char*>(host), size, direction};
    mapped_bytes_ += size;
    return CB_OK;
}

cb_status iova_table::unmap(uint64_t iova, size_t size) {
    std::lock_guard lock(mutex_);
    auto it = mappings_.find(iova);
    if (it == mappings_.end() || it->second.size != size) return CB_ERR_NOT_FOUND;
    mapped_bytes_ -= size;
    mappings_.erase(it);
    return CB_OK;
}

template <class Copy>
cb_status iova_table::walk(uint64_t iova, size_t size, bool device_writes, Copy copy) {
    std::lock_guard lock(mutex_);
    size_t done = 0;
    while (done < size) {
        const uint64_t at = iova + done;
        auto it = mappings_.upper_bound(at);
        if (it == mappings_.begin()) return CB_ERR_NOT_FOUND;
        --it;  // the mapping starting at or below `at`
        const mapping& m = it->second;
        if (at >= it->first + m.size) return CB_ERR_NOT_FOUND;
        const cb_dma_direction needed = device_writes ? CB_DMA_FROM_DEVICE : CB_DMA_TO_DEVICE;
        if (m.direction != needed && m.direction != CB_DMA_BIDIRECTIONAL) return CB_ERR_PERMISSION;
        const size_t n = static_cast<size_t>(std::min<uint64_t>(size - done, it->first + m.size - at));
        copy(m.host + (at - it->first), done, n);
        done += n;
    }
    return CB_OK;
}

cb_status iova_table::device_read(uint64_t iova, void* dst, size_t size) {
    auto* out = static_cast<unsigned char*>(dst);
    return walk(iova, size, false,
                [&](unsigned char* host, size_t done, size_t n) { std::memcpy(out + done, host, n); });
}

cb_status iova_table::device_write(uint64_t iova, const void* src, size_t size) {
    const auto* in = static_cast<const unsigned char*>(src);
    return walk(iova, size, true, [&](unsigned char* host, size_t done, size_t n) { std::memcpy(host, in + done, n); });
}

cb_dma_limits iova_table::limits() {
    std::lock_guard lock(mutex_);
    cb_dma_limits l{};
    l.struct_size = sizeof l;
    l.max_mapped_bytes = UINT64_MAX;  // no DART here: the host's memory is the limit
    l.max_mappings = UINT64_MAX;
    l.page_size = page;
    l.mapped_bytes = mapped_bytes_;
    l.mappings = mappings_.size();
    return l;
}

void iova_table::clear() {
    std::lock_guard lock(mutex_);
    mappings_.clear();
    mapped_bytes_ = 0;
}

}  // namespace loopback

// The IOMMU model (DART on an Apple Silicon host, or an x86 IOMMU): maps host memory for device
// DMA at addresses the IOMMU chooses, enforces the profile's limits, and translates the device's
// accesses back to host memory, faulting the ones a real IOMMU would refuse.
//
// Pages: a mapping takes whole pages of device address space and the IOVA keeps the host
// address's offset within its page, as DART mappings do. Bytes mapped are counted in whole pages,
// which is what fills the DART. But a device access may touch only the bytes that were asked
// for, not the rest of the first and last page: the spans translate returns are live process
// memory, so this model is stricter than hardware here, deliberately.
//
// Statistics are those the qemu-vfio-apple dext keeps (ref §1.3): mappings and bytes in use and
// their peaks, map failures, translation faults.
//
// Thread safe: one mutex guards everything. translate, which the data path calls per packet
// batch, looks in a one-entry cache of the last mapping hit before the ordered map.
#pragma once

#include "link/iommu_profile.hpp"
#include "link/iova_allocator.hpp"

#include <cudabridge/transport.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cudabridge::usb4 {

// A piece of host memory a device access lands on.
struct host_span {
    std::byte* data = nullptr;
    size_t size = 0;
};

struct dma_stats {
    uint64_t mappings = 0;  // in use now
    uint64_t peak_mappings = 0;
    uint64_t mapped_bytes = 0;  // whole pages in use now
    uint64_t peak_mapped_bytes = 0;
    uint64_t maps = 0;                // successful map calls
    uint64_t unmaps = 0;              // successful unmap calls (unmap_all counts each mapping)
    uint64_t map_failures = 0;        // maps refused for a limit, a full aperture or exhaustion
    uint64_t translation_faults = 0;  // = unmapped_faults + permission_faults
    uint64_t unmapped_faults = 0;     // access to an address no mapping covers
    uint64_t permission_faults = 0;   // access against a mapping's direction
};

class iommu {
public:
    explicit iommu(const iommu_profile& profile = apple_dart());
    iommu(const iommu&) = delete;
    iommu& operator=(const iommu&) = delete;

    // Map [host, host + size) for the device; the IOMMU picks *out_iova. The host memory is never
    // touched here. Errors: CB_ERR_INVALID_ARGUMENT (null, size 0, bad direction, address wraps);
    // CB_ERR_DMA_LIMIT (mapping count or mapped bytes would pass the profile's limit, no IOVA
    // range left, or exhaustion injected) — counted as a map failure. `why`, when given, receives
    // the reason of a refusal.
    cb_status map(void* host, size_t size, cb_dma_direction direction, uint64_t& out_iova, std::string* why = nullptr);
    // Undo one map: iova and size exactly as returned and requested, else CB_ERR_INVALID_ARGUMENT.
    cb_status unmap(uint64_t iova, size_t size, std::string* why = nullptr);
    // Drop every mapping at once (surprise removal, reset). Returns how many there were.
    size_t unmap_all();

    // A device access of `size` bytes at `iova`, writing host memory when device_writes. On
    // success `out` holds the host spans in order (one per mapping crossed; adjacent mappings may
    // be crossed). Faults leave `out` empty and are counted: CB_ERR_NOT_FOUND for an address no
    // mapping covers (including running past a mapping's end into unmapped space),
    // CB_ERR_PERMISSION for a write to a to-device mapping or a read of a from-device one.
    // size 0: CB_ERR_INVALID_ARGUMENT, not a fault.
    cb_status translate(uint64_t iova, size_t size, bool device_writes, std::vector<host_span>& out,
                        std::string* why = nullptr);

    // Limits and current use, as the transport table reports them.
    cb_dma_limits limits() const;
    dma_stats stats() const;
    const iommu_profile& profile() const noexcept { return profile_; }

    // Fault injection: while set, every map is refused with CB_ERR_DMA_LIMIT.
    void set_exhausted(bool exhausted);
    bool exhausted() const;

private:
    struct mapping {
        uint64_t base;  // first IOVA page (the map key)
        uint64_t span;  // IOVA bytes taken, whole pages
        uint64_t iova;  // base + the host address's page offset: what map returned
        uint64_t size;  // bytes asked for
        uintptr_t host;
        cb_dma_direction direction;
    };

    // The mapping whose requested bytes contain `iova`, or null. Lock held.
    const mapping* find(uint64_t iova);
    cb_status refuse(std::string* why, const std::string& reason);
    cb_status fault(std::string* why, cb_status status, const std::string& reason);

    const iommu_profile profile_;
    mutable std::mutex mutex_;
    iova_allocator iova_;
    std::map<uint64_t, mapping> mappings_;  // base -> mapping
    const mapping* last_hit_ = nullptr;     // translate's one-entry cache
    dma_stats stats_;
    bool exhausted_ = false;
};

}  // namespace cudabridge::usb4

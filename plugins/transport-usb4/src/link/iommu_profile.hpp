// What an IOMMU allows: its page size, how much memory and how many mappings it holds at once,
// and the device address range it hands out. Two hosts: an Apple Silicon Mac, whose DART and
// PCIDriverKit user client impose tight limits, and an x86 machine, whose IOMMU has none worth
// modeling. Sources in iommu_profile.cpp.
#pragma once

#include <cstdint>

namespace cudabridge::usb4 {

inline constexpr uint64_t kUnlimited = UINT64_MAX;

struct iommu_profile {
    const char* name;
    uint64_t page_size;         // mapping granularity
    uint64_t max_mapped_bytes;  // whole pages mapped at once; kUnlimited for none
    uint64_t max_mappings;      // mappings at once; kUnlimited for none
    uint64_t iova_base;         // first device address handed out (non-zero, page aligned)
    uint64_t iova_end;          // one past the last (page aligned)
};

// Apple Silicon host: DART with 16 KiB pages, 1.5 GiB and 65,536 mappings at once.
iommu_profile apple_dart() noexcept;
// x86 host: VT-d / AMD-Vi with 4 KiB pages and no practical limit.
iommu_profile x86_iommu() noexcept;

}  // namespace cudabridge::usb4

// IOMMU profiles. ref = docs/link-figures.md; labels as in generation.hpp.
#include "link/iommu_profile.hpp"

namespace cudabridge::usb4 {
namespace {

// Apple DART pages are fixed at 16 KiB: "the hardware is fixed to using a 16K pagesize"
// (Phoronix, "Apple M1 IOMMU Driver Merged For Linux 5.15", 2021-09-04) [V]; "the fixed IOMMU
// page size of 16k" (Linux commit 745ef1092bcf "iommu/io-pgtable: Move Apple DART support to its
// own file", J. Grunau, 2022) [V]; drivers/iommu/apple-dart.c reads it from DART_PARAMS1 [V].
constexpr uint64_t kDartPageSize = 16 * 1024;
// The qemu-vfio-apple dext: VFIO_USER_DMA_CHUNK_SIZE (1536ULL * 1024ULL * 1024ULL) and
// VFIO_USER_MAX_CLIENT_DMA_REGIONS 65536 [V, scottjg/qemu-vfio-apple, VFIOUserPCIDriver.cpp]. The dext names the
// first a chunk size; the simulator takes it as the memory mapped at once.
constexpr uint64_t kDartMaxMappedBytes = 1536ull * 1024 * 1024;
constexpr uint64_t kDartMaxMappings = 65536;
// Linux configures a DART domain with a 32-bit input address space (apple-dart.c,
// io_pgtable_cfg .ias = 32 [V]), so IOVAs stay below 4 GiB. Base: 1 MiB, so
// that IOVA 0 and small offsets from it never translate.
constexpr uint64_t kDartIovaBase = 1ull << 20;
constexpr uint64_t kDartIovaEnd = 1ull << 32;

// x86: 4 KiB IOMMU pages (VT-d / AMD-Vi second-level tables use the CPU's 4 KiB base page) and a
// 48-bit address width (4-level tables) [I, Intel VT-d spec].
constexpr uint64_t kX86PageSize = 4 * 1024;
constexpr uint64_t kX86IovaBase = 1ull << 20;
constexpr uint64_t kX86IovaEnd = 1ull << 48;

}  // namespace

iommu_profile apple_dart() noexcept {
    return {"apple-dart", kDartPageSize, kDartMaxMappedBytes, kDartMaxMappings, kDartIovaBase, kDartIovaEnd};
}

iommu_profile x86_iommu() noexcept {
    return {"x86-iommu", kX86PageSize, kUnlimited, kUnlimited, kX86IovaBase, kX86IovaEnd};
}

}  // namespace cudabridge::usb4

// A launch of a PTX kernel as plain data, and the self-contained bytes the userspace driver puts
// in a launch block for the ring's ptx_kernel command (hw/commands.hpp); the device model decodes
// them. The parameters travel packed as the kernel's .param list lays them out (the driver packs
// them at launch, as CUDA's driver fills the kernel's parameter bank), so device pointers are
// plain device addresses the kernel dereferences; the engine checks every access.
//
// The block also carries the VRAM pages no allocation holds (`unmapped`, device address ranges
// of whole 64 KiB pages, from the driver's allocator), so that a kernel touching one faults as
// on a GPU whose page tables leave it unmapped; the driver sends at most max_unmapped_ranges
// (the largest; what it leaves out stays mapped, so a fault is never false).
//
// It carries the host ranges kernels reach too (`host_windows`: registered and managed host
// memory, each at its own address as on a 64-bit host with unified addressing, and the IOVA the
// device reaches it at over the link); an access anywhere else outside VRAM faults. The driver
// sends at most max_host_windows (those at the highest addresses are left out, and fault).
//
// And the call stack a recursive kernel may use per thread, and where the device heap lies.
//
// Limits are CUDA's: the grid and block of check_launch_shape, 32764 bytes of parameters
// (CUDA 12.1's parameter space), and at most 227 KiB of shared memory per block (the most any
// supported GPU gives one block).
#pragma once

#include <cudabridge/abi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::nv {

inline constexpr size_t max_ptx_param_bytes = 32764;
inline constexpr uint32_t max_ptx_dynamic_shared = 227u << 10;
inline constexpr size_t max_unmapped_ranges = 1024;
inline constexpr size_t max_host_windows = 512;
inline constexpr uint32_t max_stack_bytes = 512u << 10;  // cudaLimitStackSize's bound

struct address_range {
    uint64_t first = 0, end = 0;  // [first, end)
    friend bool operator==(const address_range&, const address_range&) = default;
};

// Host memory a kernel reaches at `address` (== the host pointer), DMA-mapped at `iova`.
struct host_window {
    uint64_t address = 0, size = 0, iova = 0;
};

struct ptx_launch {
    uint64_t module_id = 0;     // in the family's module_registry
    uint32_t kernel_index = 0;  // in the module
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    uint32_t dynamic_shared = 0;
    std::vector<uint8_t> params;
    std::vector<address_range> unmapped;    // by address, disjoint
    uint64_t symbols = 0;                   // the module's variables in VRAM (0: none placed there)
    std::vector<host_window> host_windows;  // by address, disjoint
    uint32_t stack_bytes = 1024;            // per thread, for recursive kernels (cudaLimitStackSize)
    uint64_t heap_address = 0;              // the device heap in VRAM (malloc/free in kernels); 0: none
    uint64_t heap_bytes = 0;
    bool cooperative = false;  // cudaLaunchCooperativeKernel: every block resident at once

    uint64_t block_count() const { return uint64_t{grid[0]} * grid[1] * grid[2]; }
    uint64_t thread_count() const { return block_count() * block[0] * block[1] * block[2]; }
};

// CB_ERR_INVALID_ARGUMENT with a message (starting with `where`) when the shape, the dynamic
// shared memory or the parameter bytes exceed the limits.
cb_status check_ptx_launch(const ptx_launch& launch, const std::string& where, std::string& error);

// The whole 64 KiB pages of `free_blocks` (the allocator's free blocks, by address), the largest
// max_unmapped_ranges of them, by address.
std::vector<address_range> unmapped_pages(const std::vector<address_range>& free_blocks);

std::vector<uint8_t> encode_ptx_launch(const ptx_launch& launch);
// Checks everything a corrupt block could get wrong (magic, sizes, limits).
cb_status decode_ptx_launch(const void* data, size_t size, ptx_launch& out, std::string& error);

}  // namespace cudabridge::nv

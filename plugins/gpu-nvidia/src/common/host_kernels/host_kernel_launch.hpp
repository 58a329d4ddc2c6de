// A launch of a host kernel (a C function of a CB_MODULE_HOST_KERNELS module) as plain data, and
// the self-contained bytes the userspace driver puts in a launch block for the ring's host_kernel
// command (hw/commands.hpp); the device model decodes them.
//
// Device pointers travel as where they land in VRAM: the driver resolves each CB_ARG_DEVICE_PTR
// to a VRAM offset and the bytes from there to the end of its allocation (0 bytes: a null
// pointer), and the device turns that into a host address inside its VRAM mapping. CB_ARG_BYTES
// arguments travel by value in the block.
//
// Limits are CUDA's: grid x ≤ 2^31 − 1, y and z ≤ 65535; block x and y ≤ 1024, z ≤ 64, at most
// 1024 threads; every dimension ≥ 1; at most 32 KiB of arguments by value (CUDA 12.1's
// parameter space) and 512 arguments.
#pragma once

#include "common/errors/fail.hpp"

#include <cudabridge/gpu.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace cudabridge::nv {

inline constexpr size_t max_host_kernel_args = 512;
inline constexpr size_t max_host_kernel_arg_bytes = 32u << 10;

struct host_kernel_arg {
    cb_kernel_arg_type type = CB_ARG_INT64;
    uint32_t size = 0;         // CB_ARG_BYTES: its bytes in the payload
    uint64_t value = 0;        // the launched bits (device pointer, integer, double); BYTES: payload offset
    uint64_t vram_offset = 0;  // CB_ARG_DEVICE_PTR: where the pointer lands in VRAM
    uint64_t span = 0;         // CB_ARG_DEVICE_PTR: bytes from there to the end of its allocation;
                               // 0 for a null pointer
};

struct host_kernel_launch {
    uint64_t module_id = 0;     // in the family's module_registry
    uint32_t kernel_index = 0;  // in the module
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    std::vector<host_kernel_arg> args;
    std::vector<uint8_t> payload;  // CB_ARG_BYTES arguments, back to back

    uint64_t block_count() const { return uint64_t{grid[0]} * grid[1] * grid[2]; }
};

// Resolves argument `index`, a non-null device pointer, to its VRAM offset and the bytes to the
// end of its allocation; CB_ERR_INVALID_ARGUMENT (the message in `error`) when no live allocation
// holds it.
using device_pointer_resolver = std::function<cb_status(size_t index, uint64_t device_ptr, uint64_t& vram_offset,
                                                        uint64_t& span, std::string& error)>;

// CUDA's limits on a launch's grid and block (above); `where` starts the message.
cb_status check_launch_shape(const uint32_t grid[3], const uint32_t block[3], const std::string& where,
                             std::string& error);

// The start of every user kernel's ring launch block (host kernels here, PTX in
// sim/modules/ptx_launch.cpp): a magic, then module, kernel, grid and block. Each block's header
// derives from it and appends its own fields, so the shared layout is written once.
struct launch_block_target {
    uint32_t magic;
    uint32_t kernel_index;
    uint64_t module_id;
    uint32_t grid[3];
    uint32_t block[3];
};
static_assert(sizeof(launch_block_target) == 40, "no tail padding: a derived header's fields start at byte 40");

// What a user kernel's launch and its ring block header share: module, kernel, grid and block.
// Copies them either way (a launch into its header to encode, a header into a launch to decode).
template <class To, class From>
void copy_launch_target(To& to, const From& from) {
    static_assert(sizeof to.grid == sizeof from.grid && sizeof to.block == sizeof from.block);
    to.module_id = from.module_id;
    to.kernel_index = from.kernel_index;
    std::memcpy(to.grid, from.grid, sizeof to.grid);
    std::memcpy(to.block, from.block, sizeof to.block);
}

// Checks grid, block and arguments (`name` for messages) and builds the launch.
cb_status make_host_kernel_launch(const cb_kernel_launch& launch, const std::string& name, uint64_t module_id,
                                  uint32_t kernel_index, const device_pointer_resolver& resolve,
                                  host_kernel_launch& out, std::string& error);

std::vector<uint8_t> encode_host_kernel_launch(const host_kernel_launch& launch);
// Checks everything a corrupt block could get wrong (sizes, kinds, payload ranges, limits).
cb_status decode_host_kernel_launch(const void* data, size_t size, host_kernel_launch& out, std::string& error);

}  // namespace cudabridge::nv

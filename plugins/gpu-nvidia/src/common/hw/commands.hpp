// The command ring: an array of `ring_entries` 64-byte commands in host memory that the device
// fetches by DMA. The driver writes commands at PUT and rings the doorbell (reg::ring_put); the
// device executes them in order, advances GET, and for each command with flag_fence writes the
// command's fence value to the fence word (reg::fence_addr, by DMA) and to reg::fence_done; with
// flag_interrupt it also raises MSI vector 0 (when intr_fence is enabled). Fence values must
// increase. A failed command sets status_error, error_code / error_fence, raises intr_error,
// completes its fence anyway (so waiters wake and read the error) and the ring keeps going; a
// host kernel that returns a failure also leaves the status it returned in reg::error_detail. A
// PTX kernel that touches memory outside VRAM fails with CB_ERR_ILLEGAL_ADDRESS (Xid 31).
#pragma once

#include <cstdint>
#include <type_traits>

namespace cudabridge::nv::hw {

enum class opcode : uint32_t {
    nop = 0,
    copy_h2d = 1,     // a = host IOVA, b = device address, c = bytes
    copy_d2h = 2,     // a = device address, b = host IOVA, c = bytes
    copy_d2d = 3,     // a = source device address, b = destination device address, c = bytes
    memset8 = 4,      // a = device address, b = byte value, c = bytes
    launch = 5,       // a = host IOVA of a launch block (device_model/compute_engine.hpp), c = its bytes
    timestamp = 6,    // a = host IOVA of an 8-byte word: receives the PTIMER value when it runs
    host_kernel = 7,  // a = host IOVA of a host-kernel launch block (host_kernels/), c = its bytes
    ptx_kernel = 8,   // a = host IOVA of a PTX launch block (sim/modules/ptx_launch.hpp), c = its bytes
};

inline constexpr uint32_t flag_fence = 1u << 0;
inline constexpr uint32_t flag_interrupt = 1u << 1;

struct command {
    opcode op;
    uint32_t flags;
    uint64_t fence;
    uint64_t a, b, c, d;
    uint64_t reserved[2];
};
static_assert(sizeof(command) == 64 && std::is_trivially_copyable_v<command>);

}  // namespace cudabridge::nv::hw

// The register interface between the userspace driver and a GPU, as the simulated device model
// implements it. Two parts:
//  - identification registers at the offsets real NVIDIA chips use (NV_PMC_BOOT_0, NV_PMC_ENABLE,
//    NV_PMC_BOOT_42, NV_PTIMER_TIME_0/1; field layouts from NVIDIA's open-gpu-kernel-modules
//    published dev_boot.h / dev_timer.h), so a probe reads architecture and implementation as on
//    hardware;
//  - a small block of our own design at cb_block (command ring, fences, interrupts, VRAM window,
//    thermal / power / fan / clock readout and control). Real GPUs have no such block; the
//    plugin's README documents it register by register.
// All registers are 32 bits wide, little-endian; 64-bit values are LO/HI pairs (write LO first,
// HI commits). BAR0 is 16 MiB, BAR1 the VRAM aperture, BAR3 a 32 MiB instance-memory window.
#pragma once

#include <cstdint>

namespace cudabridge::nv::hw {

// ---- PCI --------------------------------------------------------------------------------------
inline constexpr uint16_t pci_vendor_nvidia = 0x10de;
inline constexpr uint32_t pci_class_3d = 0x030200;   // 3D controller (datacenter boards)
inline constexpr uint32_t pci_class_vga = 0x030000;  // VGA-compatible (GeForce / RTX pro)
inline constexpr uint64_t bar0_size = 16ull << 20;
inline constexpr uint64_t bar1_default_size = 256ull << 20;  // without resizable BAR
inline constexpr uint64_t bar3_size = 32ull << 20;

// ---- Identification (real offsets) -----------------------------------------------------------
inline constexpr uint32_t pmc_boot_0 = 0x000000;     // [28:20] chip id (arch<<4 | impl), [7:0] rev
inline constexpr uint32_t pmc_enable = 0x000200;     // bit 0: engines out of reset (0 holds them)
inline constexpr uint32_t pmc_boot_42 = 0x000A00;    // [29:24] arch, [23:20] impl, [19:16] major,
                                                     // [15:12] minor revision
inline constexpr uint32_t ptimer_time_0 = 0x009400;  // nanoseconds, low 32 bits (read first)
inline constexpr uint32_t ptimer_time_1 = 0x009410;  // high 32 bits, latched by the TIME_0 read

// NV_PMC_BOOT_42_ARCHITECTURE values.
inline constexpr uint32_t arch_turing = 0x16;
inline constexpr uint32_t arch_ampere = 0x17;        // GA100 / GA10x
inline constexpr uint32_t arch_hopper = 0x18;        // GH100
inline constexpr uint32_t arch_ada = 0x19;           // AD10x
inline constexpr uint32_t arch_blackwell_dc = 0x1A;  // GB100
inline constexpr uint32_t arch_blackwell = 0x1B;     // GB20x

// ---- Our block --------------------------------------------------------------------------------
inline constexpr uint32_t cb_block = 0x00FC0000;
inline constexpr uint32_t cb_magic_value = 0x43424750;  // "CBGP"
inline constexpr uint32_t cb_interface_version = 1;

namespace reg {
inline constexpr uint32_t magic = cb_block + 0x000;         // R  cb_magic_value
inline constexpr uint32_t version = cb_block + 0x004;       // R  cb_interface_version
inline constexpr uint32_t reset = cb_block + 0x008;         // W  reset_soft / reset_hard
inline constexpr uint32_t status = cb_block + 0x00C;        // R  status_* bits
inline constexpr uint32_t ring_base_lo = cb_block + 0x010;  // RW IOVA of the ring (host memory)
inline constexpr uint32_t ring_base_hi = cb_block + 0x014;
inline constexpr uint32_t ring_entries = cb_block + 0x018;   // RW power of two, 2..65536
inline constexpr uint32_t ring_control = cb_block + 0x01C;   // RW bit 0 enable (checks base/size)
inline constexpr uint32_t ring_put = cb_block + 0x020;       // W  doorbell: next free index
inline constexpr uint32_t ring_get = cb_block + 0x024;       // R  next index the device reads
inline constexpr uint32_t fence_addr_lo = cb_block + 0x028;  // RW IOVA of an 8-byte fence word
inline constexpr uint32_t fence_addr_hi = cb_block + 0x02C;
inline constexpr uint32_t fence_done_lo = cb_block + 0x030;   // R  last completed fence value
inline constexpr uint32_t fence_done_hi = cb_block + 0x034;   //    (read LO first; HI latched)
inline constexpr uint32_t intr_status = cb_block + 0x038;     // R/W1C intr_* bits
inline constexpr uint32_t intr_enable = cb_block + 0x03C;     // RW intr_* bits (MSI vector 0)
inline constexpr uint32_t error_code = cb_block + 0x040;      // R  cb_status of the failed command
inline constexpr uint32_t error_fence_lo = cb_block + 0x044;  // R  its fence value
inline constexpr uint32_t error_fence_hi = cb_block + 0x048;
inline constexpr uint32_t error_detail = cb_block + 0x04C;  // R  what a failed host kernel returned
// What the failure was, as text (UTF-8, NUL-padded): "kernel 'k': trap in block 3". Read only
// after an error, so the driver can tell the user more than a status code.
inline constexpr uint32_t error_text = cb_block + 0x300;  // R  error_text_bytes of it
inline constexpr uint32_t error_text_bytes = 256;
inline constexpr uint32_t vram_size_lo = cb_block + 0x050;  // R  bytes of VRAM
inline constexpr uint32_t vram_size_hi = cb_block + 0x054;
inline constexpr uint32_t vram_base_lo = cb_block + 0x058;  // R  device address of VRAM byte 0
inline constexpr uint32_t vram_base_hi = cb_block + 0x05C;
inline constexpr uint32_t compute_threads = cb_block + 0x060;  // R host threads of the compute engine
inline constexpr uint32_t bar1_window_lo = cb_block + 0x068;   // RW VRAM offset that BAR1 offset 0
inline constexpr uint32_t bar1_window_hi = cb_block + 0x06C;   //    shows (multiple of 64 KiB)

// Device memory, one board's for every process using it (RM's job on real hardware). A driver
// reserves what it allocates and releases what it frees; a reservation that would overflow the
// board's VRAM, counting other processes' allocations, is refused.
inline constexpr uint32_t mem_reserve_lo = cb_block + 0x070;  // W  bytes (HI commits the reservation)
inline constexpr uint32_t mem_reserve_hi = cb_block + 0x074;
inline constexpr uint32_t mem_release_lo = cb_block + 0x078;  // W  bytes (HI commits the release)
inline constexpr uint32_t mem_release_hi = cb_block + 0x07C;
inline constexpr uint32_t mem_status = cb_block + 0x080;   // R  cb_status of the last reservation
inline constexpr uint32_t mem_used_lo = cb_block + 0x084;  // R  bytes reserved by every process
inline constexpr uint32_t mem_used_hi = cb_block + 0x088;  //    (read LO first; HI latched)
inline constexpr uint32_t hard_resets = cb_block + 0x08C;  // R  hard resets of the board, any process
// Nanoseconds the engines spent running kernels this channel queued (PTIMER time: modeled on the
// simulated board), completed kernels only.
inline constexpr uint32_t kernel_time_lo = cb_block + 0x090;  // R  (read LO first; HI latched)
inline constexpr uint32_t kernel_time_hi = cb_block + 0x094;
// Progress of this channel's work: commands retired plus kernel blocks reached, never going back.
// Only its changes mean anything: a wait or a watchdog that sees it still is looking at a hang.
inline constexpr uint32_t progress_lo = cb_block + 0x098;  // R  (read LO first; HI latched)
inline constexpr uint32_t progress_hi = cb_block + 0x09C;
// Milliseconds of host time the kernel command now running has run (saturating); 0 while none
// runs. What a kernel time limit (a display GPU's watchdog) judges.
inline constexpr uint32_t kernel_running_ms = cb_block + 0x0A0;  // R

// The process table (R unless marked): reading proc_count takes a snapshot of the processes
// attached to the board; proc_select (W) picks a row of it for the proc_* registers below.
inline constexpr uint32_t proc_count = cb_block + 0x200;
inline constexpr uint32_t proc_select = cb_block + 0x204;
inline constexpr uint32_t proc_pid = cb_block + 0x208;
inline constexpr uint32_t proc_flags = cb_block + 0x20C;   // proc_computes
inline constexpr uint32_t proc_queued = cb_block + 0x210;  // commands queued, not completed
inline constexpr uint32_t proc_memory_lo = cb_block + 0x214;
inline constexpr uint32_t proc_memory_hi = cb_block + 0x218;
inline constexpr uint32_t proc_start_lo = cb_block + 0x21C;  // ns since the Unix epoch
inline constexpr uint32_t proc_start_hi = cb_block + 0x220;
inline constexpr uint32_t proc_name_0 = cb_block + 0x224;  // 4 registers: 16 name bytes, little-endian

// Telemetry (R) — modeled values, integers in the units named.
inline constexpr uint32_t temp_mc = cb_block + 0x100;  // milli-degrees C
inline constexpr uint32_t power_mw = cb_block + 0x104;
inline constexpr uint32_t fan_percent = cb_block + 0x108;    // 0xFFFFFFFF: no fan (passive)
inline constexpr uint32_t sm_clock_mhz = cb_block + 0x10C;   // current
inline constexpr uint32_t mem_clock_mhz = cb_block + 0x110;  // current
inline constexpr uint32_t throttle = cb_block + 0x114;       // CB_THROTTLE_* bits
inline constexpr uint32_t gpu_util_permille = cb_block + 0x118;
inline constexpr uint32_t mem_util_permille = cb_block + 0x11C;
inline constexpr uint32_t pstate_current = cb_block + 0x120;  // 0..15
inline constexpr uint32_t xid_count = cb_block + 0x124;
inline constexpr uint32_t last_xid = cb_block + 0x128;

// Settings (RW). A write outside the profile's bounds is refused: the register keeps its value
// and settings_error reads CB_ERR_INVALID_ARGUMENT until the next accepted write (then CB_OK).
inline constexpr uint32_t power_limit_mw = cb_block + 0x180;
inline constexpr uint32_t locked_sm_clock_mhz = cb_block + 0x184;   // 0: default (boost)
inline constexpr uint32_t locked_mem_clock_mhz = cb_block + 0x188;  // 0: default
inline constexpr uint32_t fan_control = cb_block + 0x18C;           // fan_auto or a percent 0..100
inline constexpr uint32_t pstate_request = cb_block + 0x190;        // 0..15; 0 = fastest allowed
inline constexpr uint32_t settings_error = cb_block + 0x194;        // R cb_status of the last write

// Bounds (R), from the model profile.
inline constexpr uint32_t min_power_mw = cb_block + 0x1C0;
inline constexpr uint32_t max_power_mw = cb_block + 0x1C4;
inline constexpr uint32_t default_power_mw = cb_block + 0x1C8;
inline constexpr uint32_t min_sm_clock = cb_block + 0x1CC;
inline constexpr uint32_t max_sm_clock = cb_block + 0x1D0;
inline constexpr uint32_t min_mem_clock = cb_block + 0x1D4;
inline constexpr uint32_t max_mem_clock = cb_block + 0x1D8;
inline constexpr uint32_t slowdown_temp_mc = cb_block + 0x1DC;
inline constexpr uint32_t shutdown_temp_mc = cb_block + 0x1E0;
inline constexpr uint32_t max_operating_temp_mc = cb_block + 0x1E4;
}  // namespace reg

inline constexpr uint32_t reset_soft = 1;  // engines: ring disabled, GET/PUT/fences cleared
inline constexpr uint32_t reset_hard = 2;  // soft + settings back to defaults + VRAM released

inline constexpr uint32_t status_ready = 1u << 0;  // out of reset, PMC_ENABLE set
inline constexpr uint32_t status_ring_on = 1u << 1;
inline constexpr uint32_t status_busy = 1u << 2;   // commands pending or running
inline constexpr uint32_t status_error = 1u << 3;  // a command failed: see error_code

inline constexpr uint32_t intr_fence = 1u << 0;  // a command with flag_interrupt completed
inline constexpr uint32_t intr_error = 1u << 1;  // a command failed

inline constexpr uint32_t proc_computes = 1u << 0;  // allocated memory or queued work
inline constexpr uint32_t proc_name_words = 4;      // reg::proc_name_0 and the three after it

inline constexpr uint32_t fan_auto = 0xFFFFFFFFu;
inline constexpr uint32_t no_fan = 0xFFFFFFFFu;

// Device addresses: VRAM byte 0 sits at vram_base (never 0, so a null pointer is never valid).
inline constexpr uint64_t vram_base = 1ull << 40;

}  // namespace cudabridge::nv::hw

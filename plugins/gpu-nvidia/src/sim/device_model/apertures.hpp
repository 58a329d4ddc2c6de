// The memory BARs: BAR1 shows VRAM through a movable window (hw::reg::bar1_window), BAR3 is the
// 32 MiB instance-memory window (plain device memory here). Accesses of 1, 2, 4 or 8 bytes or
// blocks of any multiple of 4 bytes; the part of a BAR1 access past the end of VRAM reads as
// zeros and drops writes, as unbacked aperture space does.
#pragma once

#include "sim/device_model/lazy_memory.hpp"
#include "sim/device_model/vram.hpp"

#include <cudabridge/abi.h>

#include <cstdint>

namespace cudabridge::nv {

cb_status bar1_read(const vram& memory, uint64_t bar1_size, uint64_t window, uint64_t offset, void* data,
                    uint32_t size);
cb_status bar1_write(const vram& memory, uint64_t bar1_size, uint64_t window, uint64_t offset, const void* data,
                     uint32_t size);

// The host bytes behind [offset, offset + size) of BAR1 for a host mapping: the whole range
// inside the BAR and backed by VRAM at the window's position, else nullptr.
uint8_t* bar1_map(vram& memory, uint64_t bar1_size, uint64_t window, uint64_t offset, uint64_t size);

cb_status bar3_read(const lazy_memory& memory, uint64_t offset, void* data, uint32_t size);
cb_status bar3_write(const lazy_memory& memory, uint64_t offset, const void* data, uint32_t size);

// 1, 2, 4, 8, or a non-zero multiple of 4.
bool valid_access_size(uint32_t size);

}  // namespace cudabridge::nv

// The copy engine: host <-> VRAM by DMA across the link (in pieces, so a reset or detach stops
// it between pieces), VRAM <-> VRAM and memset on the device. A range outside VRAM fails with
// CB_ERR_INVALID_ARGUMENT (Xid 31); a host DMA failure fails with the host's status.
#pragma once

#include "sim/device_model/command_result.hpp"
#include "sim/device_model/dma_port.hpp"
#include "sim/device_model/vram.hpp"

#include <cstdint>

namespace cudabridge::nv {

command_result copy_h2d(const dma_port& dma, const vram& memory, uint64_t host_iova, uint64_t device_address,
                        uint64_t bytes, const abort_check& abort);
command_result copy_d2h(const dma_port& dma, const vram& memory, uint64_t device_address, uint64_t host_iova,
                        uint64_t bytes, const abort_check& abort);
// Overlapping ranges copy as memmove does.
command_result copy_d2d(const vram& memory, uint64_t source, uint64_t destination, uint64_t bytes,
                        const abort_check& abort);
command_result fill_bytes(const vram& memory, uint64_t device_address, uint8_t value, uint64_t bytes,
                          const abort_check& abort);

}  // namespace cudabridge::nv

// Chip identification as NV_PMC_BOOT_0 / NV_PMC_BOOT_42 carry it: an architecture code and an
// implementation number (GA102 = Ampere 0x17 impl 2, AD104 = Ada 0x19 impl 4, GB202 = Blackwell
// 0x1B impl 2). The device model encodes a profile's chip; the userspace driver decodes what it
// reads back. Codes from NVIDIA's open-gpu-kernel-modules (dev_boot.h, g_hal_archimpl.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cudabridge::nv::hw {

struct chip_id {
    uint32_t architecture = 0;    // NV_PMC_BOOT_42_ARCHITECTURE
    uint32_t implementation = 0;  // NV_PMC_BOOT_42_IMPLEMENTATION
    uint32_t major_revision = 0xA;
    uint32_t minor_revision = 0x1;
};

// "GA102" -> {0x17, 2}; nullopt for a chip name we do not know.
std::optional<chip_id> chip_from_name(std::string_view chip);
// {0x1B, 2} -> "GB202"; "" when unknown.
std::string chip_name(const chip_id& id);
// "Ampere", "Hopper", "Ada Lovelace", "Blackwell", "Turing"; "" when unknown.
std::string architecture_name(uint32_t architecture);

uint32_t encode_boot_0(const chip_id& id);
uint32_t encode_boot_42(const chip_id& id);
chip_id decode_boot_42(uint32_t value);

}  // namespace cudabridge::nv::hw

// What the simulated board says about itself, derived once from its profile: the chip that
// NV_PMC_BOOT_0 / BOOT_42 report, its PCI identity (class, revision, subsystem), the size of BAR1
// and the PCIe link it trains to.
#pragma once

#include "common/hw/chip_id.hpp"
#include "common/profiles/profile.hpp"

#include <cstdint>

namespace cudabridge::nv {

struct board_identity {
    hw::chip_id chip;  // architecture 0 when neither chip nor architecture is known
    uint16_t device_id = 0;
    uint32_t pci_class = 0;  // hw::pci_class_vga or hw::pci_class_3d
    uint8_t revision = 0;    // PCI revision id: the chip's major/minor revision (0xA1)
    uint16_t subsystem_vendor = 0;
    uint16_t subsystem_id = 0;
    uint64_t vram_bytes = 0;
    uint64_t bar1_size = 0;     // a power of two
    uint32_t max_link_gen = 0;  // what the board supports: 3, 4 or 5
    uint32_t max_link_width = 16;
    uint32_t link_gen = 0;  // what it trained to
    uint32_t link_width = 0;
};

// `link_gen` / `link_width` 0: the board's maximum; larger values are clamped to it (a link
// trains to what both ends support).
board_identity identify(const gpu_profile& profile, uint32_t link_gen = 0, uint32_t link_width = 0);

}  // namespace cudabridge::nv

#include "sim/device_model/board_identity.hpp"

#include "common/hw/registers.hpp"

#include <bit>
#include <string_view>

namespace cudabridge::nv {
namespace {

// The architecture code by name, for chips chip_from_name does not know.
uint32_t architecture_code(std::string_view name) {
    if (name == "Turing") return hw::arch_turing;
    if (name == "Ampere") return hw::arch_ampere;
    if (name == "Hopper") return hw::arch_hopper;
    if (name == "Ada Lovelace") return hw::arch_ada;
    if (name == "Blackwell") return hw::arch_blackwell;
    return 0;
}

// Board chips are named after their die with a suffix ("GA104GL" is a GA104 on a professional
// board), so the die's five characters decide when the full name is unknown.
hw::chip_id chip_of(const gpu_profile& p) {
    if (auto id = hw::chip_from_name(p.chip)) return *id;
    if (p.chip.size() > 5)
        if (auto id = hw::chip_from_name(std::string_view(p.chip).substr(0, 5))) return *id;
    hw::chip_id id;
    id.architecture = architecture_code(p.architecture);
    return id;
}

// PCIe generation the chip's board supports: Gen5 from Hopper and Blackwell, Gen4 for Ampere
// and Ada, Gen3 before.
uint32_t max_gen_of(uint32_t architecture) {
    switch (architecture) {
    case hw::arch_hopper:
    case hw::arch_blackwell:
    case hw::arch_blackwell_dc:
        return 5;
    case hw::arch_ampere:
    case hw::arch_ada:
        return 4;
    default:
        return 3;
    }
}

// The widest legal link width (1, 2, 4, 8, 16) not above `requested`.
uint32_t legal_width(uint32_t requested, uint32_t max) {
    const uint32_t w = requested == 0 || requested > max ? max : requested;
    return std::bit_floor(w);
}

}  // namespace

board_identity identify(const gpu_profile& profile, uint32_t link_gen, uint32_t link_width) {
    board_identity b;
    b.chip = chip_of(profile);
    b.device_id = profile.pci_device_id;
    // Passively cooled boards are the datacenter ones (A100, H100, L4): they enumerate as 3D
    // controllers; boards with a fan (GeForce, RTX professional) as VGA controllers.
    b.pci_class = profile.passive() ? hw::pci_class_3d : hw::pci_class_vga;
    b.revision = static_cast<uint8_t>(((b.chip.major_revision & 0xF) << 4) | (b.chip.minor_revision & 0xF));
    // Model choice: NVIDIA's own subsystem vendor with the device id (a reference board).
    b.subsystem_vendor = hw::pci_vendor_nvidia;
    b.subsystem_id = profile.pci_device_id;
    b.vram_bytes = profile.vram_bytes;
    b.bar1_size = hw::bar1_default_size;
    if (profile.resizable_bar && profile.vram_bytes > b.bar1_size) b.bar1_size = std::bit_ceil(profile.vram_bytes);
    b.max_link_gen = max_gen_of(b.chip.architecture);
    b.link_gen = link_gen == 0 || link_gen > b.max_link_gen ? b.max_link_gen : link_gen;
    b.link_width = legal_width(link_width, b.max_link_width);
    return b;
}

}  // namespace cudabridge::nv

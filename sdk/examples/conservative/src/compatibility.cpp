#include "compatibility.hpp"

#include "text.hpp"

#include <algorithm>

namespace conservative {

namespace {

constexpr uint16_t nvidia = 0x10de;

bool allows_pcie(cb_security_level level) {
    return level != CB_SECURITY_DPONLY && level != CB_SECURITY_USBONLY && level != CB_SECURITY_NOPCIE;
}

}  // namespace

verdict check_compatibility(const cb_device_facts& f, const parameters& p) {
    if (f.pci_vendor_id != nvidia)
        return {false, format_text("vendor 0x%04x is not NVIDIA (0x%04x).", f.pci_vendor_id, nvidia)};
    if (((f.pci_class_code >> 16) & 0xffu) != 0x03)
        return {false, format_text("PCI class 0x%06x is not a display controller.", f.pci_class_code)};
    if (!allows_pcie(f.security_level))
        return {false, std::string("the Thunderbolt security level allows no PCIe tunnel.")};
    const double needed = std::max(f.min_link_bandwidth_gbs, p.min_link_bandwidth_gbs);
    if (!(f.link_bandwidth_gbs >= needed))
        return {false,
                format_text("link bandwidth %.2f GB/s is below the %.2f GB/s needed.", f.link_bandwidth_gbs, needed)};
    if (f.enclosure_power_w > 0 && f.enclosure_power_w < f.board_power_w)
        return {false, format_text("the enclosure delivers %.0f W, less than the card's %.0f W.", f.enclosure_power_w,
                                   f.board_power_w)};
    return {true, format_text("compatible; emergency stop at %.0f C, no automatic recovery.", p.thermal_limit_c)};
}

}  // namespace conservative

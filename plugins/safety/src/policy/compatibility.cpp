#include "policy/compatibility.hpp"

#include "policy/text.hpp"

#include <algorithm>

namespace cudabridge::plugins::safety {

namespace {

verdict refuse(std::string reason) { return {false, std::move(reason)}; }

const char* security_level_name(cb_security_level level) {
    switch (level) {
    case CB_SECURITY_DPONLY:
        return "dponly";
    case CB_SECURITY_USBONLY:
        return "usbonly";
    case CB_SECURITY_NOPCIE:
        return "nopcie";
    default:
        return "?";
    }
}

}  // namespace

bool forbids_pcie_tunnels(cb_security_level level) {
    return level == CB_SECURITY_DPONLY || level == CB_SECURITY_USBONLY || level == CB_SECURITY_NOPCIE;
}

verdict check_compatibility(const cb_device_facts& f, const parameters& p) {
    if (f.pci_vendor_id != nvidia_vendor_id)
        return refuse(
            printf_text("vendor 0x%04x is not NVIDIA (0x%04x); this policy admits NVIDIA "
                        "GPUs only.",
                        f.pci_vendor_id, nvidia_vendor_id));
    if (((f.pci_class_code >> 16) & 0xffu) != display_class)
        return refuse(
            printf_text("PCI class 0x%06x is not a display controller (class 0x03).", f.pci_class_code & 0xffffffu));
    if (forbids_pcie_tunnels(f.security_level))
        return refuse(
            printf_text("the Thunderbolt domain's security level is %s, which allows no "
                        "PCIe tunnel.",
                        security_level_name(f.security_level)));

    const double floor = std::max(f.min_link_bandwidth_gbs, p.min_link_bandwidth_gbs);
    if (floor > 0 && !(f.link_bandwidth_gbs >= floor)) {
        const char* source =
            f.min_link_bandwidth_gbs >= p.min_link_bandwidth_gbs ? "the GPU model's minimum" : "min_link_bandwidth_gbs";
        return refuse(printf_text("link bandwidth %.2f GB/s is below the required %.2f GB/s (%s).",
                                  f.link_bandwidth_gbs, floor, source));
    }
    if (f.enclosure_power_w > 0 && f.enclosure_power_w < f.board_power_w)
        return refuse(
            printf_text("the enclosure delivers %g W, less than the card's %g W board "
                        "power.",
                        f.enclosure_power_w, f.board_power_w));

    std::string reason = printf_text("compatible: NVIDIA display controller on a PCIe tunnel of %.2f GB/s nominal",
                                     f.link_bandwidth_gbs);
    if (f.enclosure_power_w > 0)
        reason += printf_text(", enclosure power %g W for a %g W card", f.enclosure_power_w, f.board_power_w);
    if (f.iommu_dma_protection == 0) reason += "; note: no IOMMU DMA protection on this domain";
    reason += ".";
    return {true, reason};
}

}  // namespace cudabridge::plugins::safety

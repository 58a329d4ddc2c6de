// PCIe link figures as sysfs shows them: current_link_speed / max_link_speed ("8.0 GT/s PCIe",
// older kernels "8 GT/s"), current_link_width / max_link_width (an integer). Source:
// Documentation/ABI/testing/sysfs-bus-pci and commit 56c1af4606f0, which added them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace cudabridge::usb4::linux_sysfs {

// "8.0 GT/s PCIe" -> 8.0; 0 for "Unknown" or anything unparsable.
double parse_link_speed_gts(std::string_view text);

// The PCIe generation of a per-lane rate: 2.5->1, 5->2, 8->3, 16->4, 32->5, 64->6; 0 unknown.
std::uint32_t pcie_generation(double gts);

struct pcie_link_figures {
    double speed_gts = 0;
    std::uint32_t generation = 0;  // 0 when unknown
    std::uint32_t width = 0;       // lanes; 0 when unknown
};

struct pcie_link_state {
    bool available = false;  // the device has the link attributes (PCIe, not conventional PCI)
    pcie_link_figures current;
    pcie_link_figures max;
    // Running below what the port can do, in speed or width.
    bool downgraded() const {
        return available && ((current.generation && max.generation && current.generation < max.generation) ||
                             (current.width && max.width && current.width < max.width));
    }
};

pcie_link_state read_pcie_link(const std::filesystem::path& device_dir);

}  // namespace cudabridge::usb4::linux_sysfs

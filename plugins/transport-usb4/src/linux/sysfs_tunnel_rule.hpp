// Which PCI functions sit behind a Thunderbolt / USB4 PCIe tunnel, and where their real link is.
//
// The rule. A function is behind a tunnel when one of its ancestors is a host tunnel bridge (the
// root or downstream port a PCIe tunnel starts from). The first device below that bridge is the
// enclosure's upstream switch port: its current_link_* figures are the enclosure's real PCIe
// link. The bridge itself reports a made-up 2.5 GT/s x1 (all-ways-egpu #37) and the GPU reports
// its own link to the enclosure's switch, so neither is read for the tunnel.
//
// The tunnel bridge is found by the first of these that applies, strongest evidence first:
//  1. The kernel linked it to a Thunderbolt NHI: a `supplier:pci:<NHI>` device link in its
//     folder. drivers/thunderbolt/acpi.c (tb_acpi_add_links) adds one for each root/downstream
//     port whose firmware node carries "usb4-host-interface" (Microsoft's _DSD for USB4 hosts,
//     Intel Alder Lake+ and AMD), nhi.c (tb_apple_add_links) for the hot-plug ports of Macs.
//     Integrated Thunderbolt root ports of Ice Lake and Tiger Lake lack the property; the kernel
//     identifies them by PCI id (arch/x86/pci/acpi.c, "PCI: Detect and trust built-in
//     Thunderbolt chips", 2024), and so does this rule, with the same list.
//  2. The kernel's `removable` attribute (Documentation/ABI/testing/sysfs-devices-removable,
//     Linux 5.12; drivers/pci/probe.c pci_set_removable): everything below a firmware
//     "ExternalFacingPort" is "removable". The topmost removable device is the enclosure's port
//     and its parent the tunnel bridge. Kernels before the 2024 change also marked a discrete
//     host controller (Alpine/Titan/Maple Ridge below an external-facing root port) removable;
//     when the topmost removable device has the NHI below it, it is that controller, and the
//     tunnel bridge is its downstream port one level further down.
//  3. With neither (no ExternalFacingPort in firmware, or a kernel older than 5.12): a
//     downstream port of a discrete controller's switch (a sibling of the port leading to the
//     NHI) with a bridge below it.
// In every case the enclosure's port must be a bridge: a Thunderbolt or USB4 device router
// always presents a PCIe switch upstream port, while the controller's own xHCI is an endpoint.
#pragma once

#include "sysfs_pci_devices.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudabridge::usb4::linux_sysfs {

enum class tunnel_evidence { nhi_device_link, integrated_root_port, removable, controller_topology };

const char* to_string(tunnel_evidence evidence);

struct tunnel_path {
    std::string tunnel_bridge;   // the host's tunnel port (fake 2.5 GT/s x1 figures)
    std::string enclosure_port;  // the enclosure's upstream switch port (the real link)
    std::string nhi;             // the host interface the tunnel belongs to; "" if not known
    tunnel_evidence evidence = tunnel_evidence::removable;
};

// `nhis`: PCI addresses of the Thunderbolt host interfaces (the parents of the domains).
// nullopt when `address` is not behind a tunnel (or is the tunnel bridge itself).
std::optional<tunnel_path> find_tunnel(const pci_map& devices, const std::vector<std::string>& nhis,
                                       const std::string& address);

}  // namespace cudabridge::usb4::linux_sysfs

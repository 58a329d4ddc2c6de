// One reading of the whole picture: the Thunderbolt fabric and the PCI functions tunnelled
// behind it, each tied to its domain and, where it can be told, to its device router.
#pragma once

#include "sysfs_pci_devices.hpp"
#include "sysfs_pcie_link.hpp"
#include "sysfs_tb_devices.hpp"
#include "sysfs_tunnel_rule.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::usb4::linux_sysfs {

struct tunnelled_function {
    const pci_device* function = nullptr;
    tunnel_path tunnel;
    std::optional<std::uint32_t> domain;  // the domain of the tunnel's NHI
    // The device router the tunnel ends in. sysfs does not say which router a PCIe tunnel goes
    // to; when the domain has exactly one authorized device router it is that one, otherwise
    // the host router (and `router_certain` is false).
    const tb_router* router = nullptr;
    bool router_certain = false;
    pcie_link_state enclosure_link;  // read at tunnel.enclosure_port
};

// Holds pointers into its own members: movable, not copyable.
struct fabric_view {
    fabric_view() = default;
    fabric_view(fabric_view&&) = default;
    fabric_view& operator=(fabric_view&&) = default;
    fabric_view(const fabric_view&) = delete;
    fabric_view& operator=(const fabric_view&) = delete;

    tb_fabric fabric;
    pci_map pci;
    std::vector<std::string> nhis;              // PCI addresses of the domains' host interfaces
    std::vector<tunnelled_function> functions;  // endpoints only (bridges are plumbing), by address

    // The tunnelled function (or enclosure bridge) at `address`, if it is behind a tunnel.
    std::optional<tunnelled_function> tunnelled(const std::string& address) const;
};

// Reads <root>/sys. Missing folders read as an empty fabric; nothing here throws for a device
// that vanishes mid-read.
fabric_view read_fabric(const std::filesystem::path& root);

}  // namespace cudabridge::usb4::linux_sysfs

#include "sysfs_tunnel_rule.hpp"

#include <algorithm>
#include <cstdint>

namespace cudabridge::usb4::linux_sysfs {
namespace {

using path_t = std::vector<const pci_device*>;

// Integrated Thunderbolt 3/4 PCIe root ports without the usb4-host-interface property, as the
// kernel lists them (arch/x86/pci/acpi.c, pcie_has_usb4_host_interface). "Not expected to grow."
bool is_listed_integrated_root_port(const pci_device& d) {
    static constexpr std::uint16_t ids[] = {
        0x8a1d, 0x8a1f, 0x8a21, 0x8a23,  // Ice Lake Thunderbolt 3
        0x9a23, 0x9a25, 0x9a27, 0x9a29,  // Tiger Lake-LP Thunderbolt 4
        0x9a2b, 0x9a2d, 0x9a2f, 0x9a31,  // Tiger Lake-H Thunderbolt 4
    };
    return d.vendor == 0x8086 && std::find(std::begin(ids), std::end(ids), d.device) != std::end(ids);
}

const std::string* linked_nhi(const pci_device& d, const std::vector<std::string>& nhis) {
    for (const auto& s : d.suppliers)
        for (const auto& n : nhis)
            if (s == n) return &n;
    return nullptr;
}

// The NHI whose own chain shares the most bridges with `path` (the controller the tunnel came
// from); with a single NHI, that one.
std::string nearest_nhi(const pci_map& devices, const std::vector<std::string>& nhis, const path_t& path) {
    std::string best;
    std::size_t best_shared = 0;
    for (const auto& n : nhis) {
        const auto npath = pci_path(devices, n);
        std::size_t shared = 0;
        while (shared < npath.size() && shared < path.size() && npath[shared] == path[shared]) ++shared;
        if (shared > best_shared) {
            best_shared = shared;
            best = n;
        }
    }
    if (best.empty() && nhis.size() == 1) best = nhis.front();
    return best;
}

bool above_an_nhi(const pci_map& devices, const std::vector<std::string>& nhis, const std::string& address) {
    return std::any_of(nhis.begin(), nhis.end(),
                       [&](const std::string& n) { return pci_is_at_or_above(devices, address, n); });
}

std::optional<tunnel_path> make(const path_t& path, std::size_t bridge_index, std::string nhi,
                                tunnel_evidence evidence) {
    if (bridge_index + 1 >= path.size()) return std::nullopt;       // nothing below the bridge
    if (!path[bridge_index + 1]->is_bridge()) return std::nullopt;  // not an enclosure's switch
    return tunnel_path{path[bridge_index]->address, path[bridge_index + 1]->address, std::move(nhi), evidence};
}

}  // namespace

const char* to_string(tunnel_evidence evidence) {
    switch (evidence) {
    case tunnel_evidence::nhi_device_link:
        return "device link to the Thunderbolt NHI";
    case tunnel_evidence::integrated_root_port:
        return "integrated Thunderbolt root port";
    case tunnel_evidence::removable:
        return "removable below an external-facing port";
    case tunnel_evidence::controller_topology:
        return "downstream port of the Thunderbolt controller";
    }
    return "?";
}

std::optional<tunnel_path> find_tunnel(const pci_map& devices, const std::vector<std::string>& nhis,
                                       const std::string& address) {
    const path_t path = pci_path(devices, address);
    if (path.size() < 2) return std::nullopt;

    // 1. A bridge the kernel tied to an NHI, or one of the listed integrated root ports.
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        if (const auto* nhi = linked_nhi(*path[i], nhis)) return make(path, i, *nhi, tunnel_evidence::nhi_device_link);
        if (!path[i]->parent.empty()) continue;  // root ports sit on a root bus
        if (is_listed_integrated_root_port(*path[i]))
            return make(path, i, nearest_nhi(devices, nhis, {path[i]}), tunnel_evidence::integrated_root_port);
    }

    // 2. The topmost removable device.
    for (std::size_t j = 0; j < path.size(); ++j) {
        if (path[j]->removable != "removable") continue;
        if (j == 0) return std::nullopt;  // no port above it to call the tunnel bridge
        if (!above_an_nhi(devices, nhis, path[j]->address))
            return make(path, j - 1, nearest_nhi(devices, nhis, path), tunnel_evidence::removable);
        // An older kernel marked the discrete controller itself; its downstream port (not the one
        // leading to the NHI) is the tunnel bridge.
        if (j + 1 < path.size() && !above_an_nhi(devices, nhis, path[j + 1]->address))
            return make(path, j + 1, nearest_nhi(devices, nhis, path), tunnel_evidence::removable);
        return std::nullopt;
    }

    // 3. A downstream port of the switch that also leads to an NHI.
    for (std::size_t i = 1; i + 1 < path.size(); ++i) {
        if (above_an_nhi(devices, nhis, path[i - 1]->address) && !above_an_nhi(devices, nhis, path[i]->address) &&
            path[i]->is_bridge())
            return make(path, i, nearest_nhi(devices, nhis, path), tunnel_evidence::controller_topology);
    }
    return std::nullopt;
}

}  // namespace cudabridge::usb4::linux_sysfs

#include "sysfs_pci_devices.hpp"

#include "sysfs_io.hpp"

#include <algorithm>
#include <cctype>

namespace cudabridge::usb4::linux_sysfs {
namespace {

bool all_hex(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

std::uint16_t id16(const fs::path& file) {
    return static_cast<std::uint16_t>(read_unsigned(file).value_or(0) & 0xffffu);
}

}  // namespace

bool is_pci_address(std::string_view s) {
    const auto c1 = s.find(':');
    if (c1 == std::string_view::npos || c1 < 4 || c1 > 8) return false;
    const auto rest = s.substr(c1 + 1);
    return rest.size() == 7 && all_hex(s.substr(0, c1)) && all_hex(rest.substr(0, 2)) && rest[2] == ':' &&
           all_hex(rest.substr(3, 2)) && rest[5] == '.' && rest[6] >= '0' && rest[6] <= '7';
}

bool check_pci_address(std::string_view text, std::string& error) {
    if (is_pci_address(text)) return true;
    error = "'" + std::string(text) + "' is not a PCI address (DDDD:BB:DD.F)";
    return false;
}

pci_map scan_pci_devices(const fs::path& root) {
    pci_map devices;
    const fs::path bus = at(root, "/sys/bus/pci/devices");
    for (const auto& name : list_names(bus)) {
        if (!is_pci_address(name)) continue;
        auto dir = resolve(bus / name);
        if (!dir) continue;  // vanished while we looked (hot-unplug)
        pci_device d;
        d.address = name;
        d.dir = *dir;
        // The parent folder is the upstream bridge, or pciDDDD:BB (the host bridge) on a root bus.
        const auto parent = d.dir.parent_path().filename().string();
        if (is_pci_address(parent)) d.parent = parent;
        d.vendor = id16(d.dir / "vendor");
        d.device = id16(d.dir / "device");
        d.subsystem_vendor = id16(d.dir / "subsystem_vendor");
        d.subsystem_device = id16(d.dir / "subsystem_device");
        d.class_code = static_cast<std::uint32_t>(read_unsigned(d.dir / "class").value_or(0) & 0xffffffu);
        d.driver = link_target_name(d.dir / "driver");
        d.removable = read_attribute(d.dir / "removable").value_or("");
        // Device links appear in the consumer as supplier:<bus>:<name> (drivers/base/core.c,
        // devlink_add_symlinks).
        constexpr std::string_view prefix = "supplier:pci:";
        for (const auto& entry : list_names(d.dir))
            if (entry.size() > prefix.size() && entry.compare(0, prefix.size(), prefix) == 0)
                d.suppliers.push_back(entry.substr(prefix.size()));
        devices.emplace(name, std::move(d));
    }
    return devices;
}

std::vector<const pci_device*> pci_path(const pci_map& devices, const std::string& address) {
    std::vector<const pci_device*> path;
    std::string at_address = address;
    // Bounded: a PCI hierarchy is at most 256 buses deep, and a loop must not hang us.
    for (int guard = 0; !at_address.empty() && guard < 256; ++guard) {
        auto it = devices.find(at_address);
        if (it == devices.end()) break;
        path.push_back(&it->second);
        at_address = it->second.parent;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

bool pci_is_at_or_above(const pci_map& devices, const std::string& ancestor, const std::string& address) {
    for (const auto* d : pci_path(devices, address))
        if (d->address == ancestor) return true;
    return false;
}

}  // namespace cudabridge::usb4::linux_sysfs

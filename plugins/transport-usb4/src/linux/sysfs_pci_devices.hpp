// The PCI functions the kernel lists in /sys/bus/pci/devices, with what this backend needs of
// each: identity, bound driver, place in the hierarchy, and the Thunderbolt hints the kernel
// leaves (`removable`, device links to a Thunderbolt NHI).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::usb4::linux_sysfs {

// "DDDD:BB:DD.F" with hex digits (a domain may have up to 8, as VMD domains do).
bool is_pci_address(std::string_view text);
// is_pci_address; when not, `error` says so ("'x' is not a PCI address (DDDD:BB:DD.F)").
bool check_pci_address(std::string_view text, std::string& error);

struct pci_device {
    std::string address;
    std::filesystem::path dir;  // canonical folder under /sys/devices
    std::string parent;         // address of the upstream bridge; "" on a root bus
    std::uint16_t vendor = 0;
    std::uint16_t device = 0;
    std::uint16_t subsystem_vendor = 0;
    std::uint16_t subsystem_device = 0;
    std::uint32_t class_code = 0;        // 24-bit class / subclass / prog-if
    std::string driver;                  // basename of the `driver` symlink; "" when unbound
    std::string removable;               // "removable", "fixed", "unknown", or "" when absent
    std::vector<std::string> suppliers;  // PCI addresses from `supplier:pci:<addr>` device links

    bool is_bridge() const { return (class_code >> 8) == 0x0604; }  // PCI-to-PCI bridge
};

using pci_map = std::map<std::string, pci_device>;  // by address

pci_map scan_pci_devices(const std::filesystem::path& root);

// The chain from the topmost bridge down to `address` itself (empty if unknown).
std::vector<const pci_device*> pci_path(const pci_map& devices, const std::string& address);

// True when `ancestor` is `address` or lies above it.
bool pci_is_at_or_above(const pci_map& devices, const std::string& ancestor, const std::string& address);

}  // namespace cudabridge::usb4::linux_sysfs

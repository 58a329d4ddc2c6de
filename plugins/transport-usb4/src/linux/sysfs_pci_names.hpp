// Readable names for the PCI functions this backend lists, without depending on pci.ids: the
// class (from the PCI Code and ID Assignment specification) and the few vendors an eGPU path
// shows. Unknown ones read as their hex ids.
#pragma once

#include <cstdint>
#include <string>

namespace cudabridge::usb4::linux_sysfs {

std::string pci_class_name(std::uint32_t class_code);  // 0x030000 -> "VGA compatible controller"
std::string pci_vendor_name(std::uint16_t vendor);     // 0x10de -> "NVIDIA Corporation"

}  // namespace cudabridge::usb4::linux_sysfs

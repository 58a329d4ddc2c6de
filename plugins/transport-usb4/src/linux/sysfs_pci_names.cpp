#include "sysfs_pci_names.hpp"

#include <cstdio>

namespace cudabridge::usb4::linux_sysfs {

std::string pci_class_name(std::uint32_t class_code) {
    struct entry {
        std::uint32_t class_subclass;
        const char* name;
    };
    static constexpr entry names[] = {
        {0x0100, "SCSI storage controller"},
        {0x0106, "SATA controller"},
        {0x0108, "Non-Volatile memory controller"},
        {0x0200, "Ethernet controller"},
        {0x0280, "Network controller"},
        {0x0300, "VGA compatible controller"},
        {0x0302, "3D controller"},
        {0x0380, "Display controller"},
        {0x0403, "Audio device"},
        {0x0604, "PCI bridge"},
        {0x0c03, "USB controller"},
        {0x0c80, "Serial bus controller"},
        {0x1200, "Processing accelerator"},
    };
    const std::uint32_t cs = (class_code >> 8) & 0xffffu;
    for (const auto& e : names)
        if (e.class_subclass == cs) return e.name;
    char buf[32];
    std::snprintf(buf, sizeof buf, "Class %04x", static_cast<unsigned>(cs));
    return buf;
}

std::string pci_vendor_name(std::uint16_t vendor) {
    switch (vendor) {
    case 0x10de:
        return "NVIDIA Corporation";
    case 0x1002:
        return "Advanced Micro Devices, Inc. [AMD/ATI]";
    case 0x1022:
        return "Advanced Micro Devices, Inc. [AMD]";
    case 0x8086:
        return "Intel Corporation";
    case 0x1b21:
        return "ASMedia Technology Inc.";
    case 0x106b:
        return "Apple Inc.";
    default:
        break;
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04x", static_cast<unsigned>(vendor));
    return buf;
}

}  // namespace cudabridge::usb4::linux_sysfs

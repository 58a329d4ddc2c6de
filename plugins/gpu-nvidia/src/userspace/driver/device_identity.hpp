// Probing a function behind a link: is it an NVIDIA GPU carrying our register block, which chip,
// how much VRAM, which model profile. Read-only: probing changes nothing on the device.
#pragma once

#include "userspace/driver/link_port.hpp"
#include "userspace/driver/register_access.hpp"

#include "common/hw/chip_id.hpp"
#include "common/profiles/profile.hpp"

#include <cudabridge/gpu.h>

#include <cstdint>
#include <string>

namespace cudabridge::nv {

struct device_identity {
    uint16_t vendor_id = 0;
    uint16_t device_id = 0;
    uint16_t subsystem_vendor_id = 0;
    uint16_t subsystem_id = 0;
    uint32_t class_code = 0;  // 24 bits: class, subclass, prog-if
    uint32_t interface_version = 0;
    hw::chip_id chip;
    std::string chip_name;     // "GB202"
    std::string architecture;  // "Blackwell"
    uint64_t vram_base = 0;
    uint64_t vram_size = 0;
    uint32_t max_sm_clock_mhz = 0;
    uint32_t max_mem_clock_mhz = 0;
    bool simulated = false;                // the link's figures are modeled
    const gpu_profile* profile = nullptr;  // by PCI device id; null when none matches
};

// CB_ERR_UNSUPPORTED: another vendor, or BAR0 without the CudaBridge block or with an unknown
// architecture; CB_ERR_NO_DEVICE: the function does not answer (all ones);
// CB_ERR_ABI_MISMATCH: another interface version. `error` says which and what was read.
cb_status identify_device(link_port& port, register_access& regs, device_identity& out, std::string& error);

// The cb_gpu_properties the identity gives (name and figures from the profile when one matched).
cb_gpu_properties properties_of(const device_identity& id);

}  // namespace cudabridge::nv

// The compatibility verdict: may this device be used on this link? Refuses, in this order, a
// vendor other than NVIDIA, a PCI function that is not a display controller, a Thunderbolt
// domain whose security level forbids PCIe tunnels, a link slower than the required minimum, and
// an enclosure that cannot power the card. The first refusal found is the reason.
#pragma once

#include "policy/parameters.hpp"

#include <cudabridge/safety.h>

#include <string>

namespace cudabridge::plugins::safety {

inline constexpr uint16_t nvidia_vendor_id = 0x10de;
inline constexpr uint32_t display_class = 0x03;  // top byte of the 24-bit PCI class code

struct verdict {
    bool compatible = false;
    std::string reason;
};

verdict check_compatibility(const cb_device_facts& facts, const parameters& p);

// The security levels that leave no PCIe tunnel (dponly, usbonly, nopcie).
bool forbids_pcie_tunnels(cb_security_level level);

}  // namespace cudabridge::plugins::safety

// May this device be used on this link? The conservative policy refuses everything the standard
// one refuses: a vendor other than NVIDIA, a function that is not a display controller, a
// Thunderbolt security level that allows no PCIe tunnel, a link slower than needed, an enclosure
// that cannot power the card.
#pragma once

#include "parameters.hpp"

#include <cudabridge/safety.h>

#include <string>

namespace conservative {

struct verdict {
    bool compatible = false;
    std::string reason;
};

verdict check_compatibility(const cb_device_facts& facts, const parameters& p);

}  // namespace conservative

// Thunderbolt authorization as the kernel does it, for one simulated device router: what a
// write of 1 or 2 (with or without a key) does at each domain security level.
#pragma once

#include "sim/fabric_layout.hpp"

#include <cudabridge/abi.h>

#include <string>

namespace cudabridge::usb4 {

struct auth_result {
    cb_status status = CB_OK;
    std::string message;  // what happened, or why it was refused and what to do
};

// Applies an authorization request to `enclosure` (in a domain at `domain.security`):
// - none: devices are authorized when plugged; a request just confirms it;
// - user: level 1 authorizes; a key is not used;
// - secure: level 1 with a 32-byte key enrolls it (stores it, as the kernel writes it to the
//   device NVM); level 2 challenges the stored key (EKEYREJECTED on mismatch, ENOKEY when none
//   was enrolled);
// - dponly, usbonly, nopcie: no PCIe tunnel may be made, so every request is refused.
auth_result apply_authorization(const domain_layout& domain, enclosure_layout& enclosure, cb_auth_state level,
                                const uint8_t* key, size_t key_len);

// Deauthorize: only where the domain supports it (the kernel's `deauthorization` attribute).
auth_result apply_deauthorization(const domain_layout& domain, enclosure_layout& enclosure);

// Whether a PCIe tunnel may be opened to the device now.
bool pcie_allowed(const domain_layout& domain, const enclosure_layout& enclosure);

std::string key_to_hex(const uint8_t* key, size_t len);

}  // namespace cudabridge::usb4

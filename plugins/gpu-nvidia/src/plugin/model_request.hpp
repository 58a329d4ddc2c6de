// What create_endpoint_model is asked for: a GPU model profile, given either in full (the JSON of
// profiles/profile_json) or by reference ({"key": "rtx-5090"} or {"pci_device_id": 11141}), plus
// optional "device_id" naming the simulated device (the enclosure's id) for its live-state file,
// and optional "pcie_link_gen" / "pcie_link_width": the PCIe link the enclosure's port trained to
// (default: the board's maximum). Anything else is refused with the reason.
#pragma once

#include "common/profiles/profile.hpp"

#include <string>
#include <string_view>

namespace cudabridge::nv {

struct model_request {
    gpu_profile profile;
    std::string device_id;         // "" when not given: the profile key is used
    uint32_t pcie_link_gen = 0;    // 0: the board's maximum
    uint32_t pcie_link_width = 0;  // 0: the board's maximum
};

// Throws sdk::status_error(CB_ERR_INVALID_ARGUMENT or CB_ERR_NOT_FOUND) naming the problem.
model_request parse_model_request(std::string_view json);

}  // namespace cudabridge::nv

// The PCIe link of one tunnelled function, read where it means something: speed and width at
// the enclosure's upstream port (see sysfs_tunnel_rule.hpp), AER counters at both ends of the
// path (the port and the function), since a bad endpoint may show zeros while its link partner
// counts the errors (docs/removal-and-pcie-errors.md §3).
#pragma once

#include "sysfs_aer.hpp"
#include "sysfs_pcie_link.hpp"

#include <cudabridge/abi.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace cudabridge::usb4::linux_sysfs {

struct pci_link_report {
    std::string function;       // the function asked about
    std::string port;           // the enclosure's upstream port, where the link is read
    std::string tunnel_bridge;  // the host's tunnel port (its own figures are not real)
    std::uint32_t current_gen = 0;
    std::uint32_t current_width = 0;
    std::uint32_t max_gen = 0;
    std::uint32_t max_width = 0;
    double current_speed_gts = 0;
    double max_speed_gts = 0;
    // Current below max at the port. Through a tunnel this is what the enclosure negotiated,
    // not the tunnel's bandwidth; compare against the first reading too before alarming.
    bool downgraded = false;
    aer_counters port_aer;
    aer_counters function_aer;
    pcie_link_state function_link;  // the function's own link (to the enclosure's switch), for info
};

// CB_ERR_NOT_FOUND when there is no such PCI function; CB_ERR_INVALID_ARGUMENT when it is not
// behind a Thunderbolt tunnel or the address is malformed.
cb_status read_link_report(const std::filesystem::path& root, std::string_view pci_id, pci_link_report& out,
                           std::string& error);

}  // namespace cudabridge::usb4::linux_sysfs

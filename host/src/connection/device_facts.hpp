// What the safety policy is told about a device before it may connect: the PCI identity (from
// the function once tunnelled, else what the enclosure advertises), the link's nominal PCIe
// bandwidth, the enclosure's power budget, and the model profile's board power and minimum link.
#pragma once

#include <cudabridge/host/device.hpp>
#include <cudabridge/host/link_names.hpp>
#include <cudabridge/host/session.hpp>

#include <optional>
#include <string>

namespace cudabridge::host {

cb_device_facts device_facts(session& s, const detected_device& d, const std::optional<cb_endpoint_info>& function);

// The PCIe bandwidth a link's tunnel carries, GB/s: PCIe 3.0 x4 (3.94) on Thunderbolt 3/4 and
// USB4 40G, PCIe 4.0 x4 (7.88) on USB4 v2 / Thunderbolt 5 and OCuLink, capped by the USB4 lanes'
// line rate (a 20 Gb/s link carries at most 2.5 GB/s).
double nominal_tunnel_bandwidth_gbs(const cb_endpoint_info& enclosure);

}  // namespace cudabridge::host

// The fabric as the transport table's `enumerate` reports it: cb_endpoint_info records for
// domains, host routers, device routers and the PCI functions tunnelled behind them.
#pragma once

#include "sysfs_fabric_view.hpp"

#include <cudabridge/transport.h>

#include <filesystem>
#include <vector>

namespace cudabridge::usb4::linux_sysfs {

// Per domain: the domain ("domainN"), its host router, its device routers (by depth and
// route), then the PCI functions behind its tunnels (by address). ids: "domainN", the routers'
// unique_id, PCI addresses. A PCI function's link gen/width are those of the enclosure's
// upstream port (see sysfs_tunnel_rule.hpp). Bridges are not listed. is_simulated is 0.
std::vector<cb_endpoint_info> to_endpoints(const fabric_view& view);

std::vector<cb_endpoint_info> enumerate_endpoints(const std::filesystem::path& root);

}  // namespace cudabridge::usb4::linux_sysfs

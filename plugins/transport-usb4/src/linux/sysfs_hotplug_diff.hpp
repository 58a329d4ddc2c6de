// Hot-plug events from two enumerations, so the glue can poll sysfs (a udev netlink monitor can
// replace the polling later without changing what is reported).
#pragma once

#include <cudabridge/transport.h>

#include <span>
#include <vector>

namespace cudabridge::usb4::linux_sysfs {

// Compared by id. Order: unplugged (in `before` order), then for each endpoint of `after`:
// plugged, authorized / deauthorized (authorization 0 <-> non-zero), and LINK_ERROR when a PCI
// function's link at the enclosure port dropped in generation or width (downtraining).
std::vector<cb_transport_event> diff_endpoints(std::span<const cb_endpoint_info> before,
                                               std::span<const cb_endpoint_info> after);

}  // namespace cudabridge::usb4::linux_sysfs

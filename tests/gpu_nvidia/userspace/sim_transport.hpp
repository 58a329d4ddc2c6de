// A cb_transport_table over one usb4::sim_link, for tests that drive the userspace driver through
// the real simulated link without the transport plugin: the instance pointer is the sim_link and
// the cb_link* handle is unused. Exceptions the link throws become their status, as the plugin's
// boundary does.
#pragma once

#include "sim/sim_link.hpp"

#include <cudabridge/transport.h>

namespace cudabridge::test {

// The table (static, shared); pass the sim_link as the instance.
const cb_transport_table* sim_transport_table();
inline cb_link* sim_link_handle(usb4::sim_link& link) { return reinterpret_cast<cb_link*>(&link); }

}  // namespace cudabridge::test

// What the loopback shows the host: one domain, its host router, one enclosure, and behind it
// the PCI function of the hosted model once a GPU family attached one. The same enclosure in
// the "layout" reply tells the host which GPU model to build for it.
#pragma once

#include "hosted_model.hpp"

#include <cudabridge/transport.h>

#include <string>
#include <vector>

namespace loopback {

inline constexpr const char* domain_id = "loopback";
inline constexpr const char* host_router_id = "loopback-host";
inline constexpr const char* enclosure_id = "loopback0";
inline constexpr const char* function_id = "0000:01:00.0";

// The endpoints, domain first; `model` is null while no model is attached.
std::vector<cb_endpoint_info> endpoints(const std::string& gpu_model, const hosted_model* model);

// The reply to {"op":"layout"}: {"op":"layout","layout":{"host", "domains", "enclosures"}}, the
// shape the host reads from a simulated fabric (enclosure id, gpu_model and, once known, the
// GPU's PCI ids).
std::string layout_json(const std::string& gpu_model, const hosted_model* model);

}  // namespace loopback

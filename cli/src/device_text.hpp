// Words and units for what device commands print: link generations, security levels,
// authorization states, performance states, throttle reasons, byte sizes. Shared by info, status,
// devices, monitor and sim, so every command names a thing the same way.
#pragma once

#include <cudabridge/gpu.h>
#include <cudabridge/host/link_names.hpp>
#include <cudabridge/transport.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::cli {

using host::generation_name;
using host::security_name;

const char* generation_key(cb_link_generation g) noexcept;  // "tb4"
const char* authorization_name(cb_auth_state a) noexcept;   // "authorized"
std::string pstate_name(int32_t p);                         // "P0"
// "P0".."P15" or "0".."15" -> the number.
std::optional<int32_t> parse_pstate(const std::string& text);
std::vector<std::string> throttle_names(uint32_t reasons);  // {"sw_power_cap", ...}
std::string join(const std::vector<std::string>& parts, const std::string& separator);
std::string hex16(uint32_t v);              // "0x10de"
std::string bytes_text(uint64_t bytes);     // "31.8 GiB"
std::string fixed(double v, int decimals);  // "12.50"
// "modeled" for figures the simulator computes, "measured" for hardware readings.
inline const char* provenance(bool simulated) { return simulated ? "modeled" : "measured"; }

}  // namespace cudabridge::cli

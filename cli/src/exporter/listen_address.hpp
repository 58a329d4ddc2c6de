// `exporter --listen` values: "HOST:PORT", "[IPV6]:PORT", or ":PORT" (every interface, as
// dcgm-exporter's ":9400"). A port of 0 asks the system for a free one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cudabridge::cli::exporter {

struct listen_address {
    std::string host;  // "" for every interface; an IPv6 address without its brackets
    uint16_t port = 0;
};

// The address, or nullopt and why not ("'9400' has no port: give HOST:PORT ...").
std::optional<listen_address> parse_listen_address(std::string_view text, std::string& why);

}  // namespace cudabridge::cli::exporter

#include "exporter/listen_address.hpp"

#include <charconv>

namespace cudabridge::cli::exporter {

std::optional<listen_address> parse_listen_address(std::string_view text, std::string& why) {
    const std::string quoted = "'" + std::string(text) + "'";
    listen_address out;
    std::string_view port;
    if (!text.empty() && text.front() == '[') {
        const size_t close = text.find(']');
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
            why = quoted + " is not [IPV6]:PORT";
            return std::nullopt;
        }
        out.host = std::string(text.substr(1, close - 1));
        port = text.substr(close + 2);
        if (out.host.empty()) {
            why = quoted + " has an empty IPv6 address";
            return std::nullopt;
        }
    } else {
        const size_t colon = text.rfind(':');
        if (colon == std::string_view::npos) {
            why = quoted + " has no port: give HOST:PORT (127.0.0.1:9400), [IPV6]:PORT or :PORT";
            return std::nullopt;
        }
        out.host = std::string(text.substr(0, colon));
        port = text.substr(colon + 1);
        if (out.host.find(':') != std::string::npos) {
            why = quoted + ": an IPv6 address goes in brackets, [::1]:9400";
            return std::nullopt;
        }
    }
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
        why = quoted + ": the port must be a whole number from 0 to 65535";
        return std::nullopt;
    }
    out.port = static_cast<uint16_t>(value);
    return out;
}

}  // namespace cudabridge::cli::exporter

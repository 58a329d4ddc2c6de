#include "json_text.hpp"

#include <cstdio>

namespace loopback {

namespace {

size_t skip_space(std::string_view s, size_t at) {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r')) ++at;
    return at;
}

}  // namespace

std::optional<std::string> request_op(std::string_view request) {
    // The host's requests are flat objects; "op" names the operation and holds no escapes. A
    // string "op" not followed by a colon is some other key's value: look further.
    for (size_t key = request.find("\"op\""); key != std::string_view::npos; key = request.find("\"op\"", key + 4)) {
        size_t at = skip_space(request, key + 4);
        if (at >= request.size() || request[at] != ':') continue;
        at = skip_space(request, at + 1);
        if (at >= request.size() || request[at] != '"') return std::nullopt;
        const size_t end = request.find('"', at + 1);
        if (end == std::string_view::npos) return std::nullopt;
        return std::string(request.substr(at + 1, end - at - 1));
    }
    return std::nullopt;
}

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

}  // namespace loopback

#include "terminal_text.hpp"

#include <cstdio>

#include <unistd.h>

namespace cudabridge::cli {

std::string escape_controls(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    char hex[8];
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        // C1 controls arrive in UTF-8 as 0xC2 0x80..0x9F: terminals act on them too.
        if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
            std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned char>(text[++i]));
            out += hex;
        } else if ((c < 0x20 && c != '\t') || c == 0x7F) {
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        } else {
            out.push_back(static_cast<char>(c));
        }
    }
    return out;
}

std::string for_stdout(std::string_view text) {
    static const bool terminal = ::isatty(STDOUT_FILENO) != 0;
    return terminal ? escape_controls(text) : std::string(text);
}

}  // namespace cudabridge::cli

// The one reading of a boolean setting, shared by the host, its tools and every plugin, so a
// value means the same wherever it is read: "1", "true", "yes", "on" and "0", "false", "no",
// "off", in any letter case. Header-only; nothing here links against the host.
#ifndef CUDABRIDGE_CPP_BOOL_TEXT_HPP
#define CUDABRIDGE_CPP_BOOL_TEXT_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cudabridge::sdk {

namespace detail {

// ASCII only: the words are English, and a locale must not change what a setting means.
inline bool equals_ignoring_case(std::string_view text, std::string_view lower_word) noexcept {
    if (text.size() != lower_word.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        if (lower != lower_word[i]) return false;
    }
    return true;
}

}  // namespace detail

// The boolean `text` names, or nullopt when it names none (see not_a_bool_message).
inline std::optional<bool> parse_bool(std::string_view text) noexcept {
    for (std::string_view word : {"1", "true", "yes", "on"})
        if (detail::equals_ignoring_case(text, word)) return true;
    for (std::string_view word : {"0", "false", "no", "off"})
        if (detail::equals_ignoring_case(text, word)) return false;
    return std::nullopt;
}

// Why `text` is refused as a boolean, with the words that are accepted.
inline std::string not_a_bool_message(std::string_view text) {
    return "'" + std::string(text) + "' is not a boolean (use 1/0, true/false, yes/no, on/off)";
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_BOOL_TEXT_HPP

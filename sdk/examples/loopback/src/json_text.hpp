// The little JSON the loopback speaks: it reads the "op" of a control request and writes small
// replies, so it needs no JSON library.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace loopback {

// The value of the top-level "op" string; nullopt when there is none.
std::optional<std::string> request_op(std::string_view request);

// `text` as a JSON string, quotes included.
std::string json_string(std::string_view text);

}  // namespace loopback

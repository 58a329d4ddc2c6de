// The policy's parameters through the host: declared with help text and range at create, then
// read back as the host resolves them (instance config, stored "<plugin>.<name>" setting,
// declared default).
#pragma once

#include "policy/parameters.hpp"

#include <cudabridge/cpp/host.hpp>

#include <string_view>

namespace cudabridge::plugins::safety {

// Declares every parameter with `defaults` as its default; throws sdk::status_error when the
// host refuses one.
void declare_parameters(const sdk::host& host, const parameters& defaults);

// The effective values; a parameter the host does not answer for keeps its default. Throws
// sdk::status_error (CB_ERR_INVALID_ARGUMENT) naming "<plugin>.<name>", the value and what is
// accepted when a value does not parse or is out of range.
parameters read_parameters(const sdk::host& host, const parameters& defaults, std::string_view plugin_name);

}  // namespace cudabridge::plugins::safety

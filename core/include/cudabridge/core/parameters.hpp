// Declared parameters: the settings keys CudaBridge knows, with type, default, range and help.
// Plugins declare theirs through the host services; the core declares its own here.
#pragma once

#include <cudabridge/core/store.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace cudabridge::core {

// Declares log.*, store.* (idempotent: writes only what changed).
void declare_core_parameters(store& s);

// Why `value` is not acceptable for parameter p (type, range, allowed names), or nullopt.
std::optional<std::string> check_parameter_value(const parameter_row& p, std::string_view value);

// For a folder parameter (CB_PARAM_FLAG_DIRECTORY), when it is set: creates the folder if it is
// missing and says why it cannot be used (not absolute, cannot be created, not writable).
// nullopt for a usable folder and for every other parameter.
std::optional<std::string> prepare_directory_value(const parameter_row& p, std::string_view value);

// A parameter's effective value: the stored global setting, else its default.
std::optional<std::string> effective_value(store& s, std::string_view name);

}  // namespace cudabridge::core

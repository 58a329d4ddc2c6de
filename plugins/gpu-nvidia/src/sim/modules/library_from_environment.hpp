// A library a CUDABRIDGE_* variable names in place of the built-in choice (the PTX engine,
// NVRTC). The variable is read through sdk::secure_env, so a privileged process ignores it, and
// the file is loaded only when the SDK's rule for loaded files finds nothing against it: another
// local user must not be able to put code into this process through a variable or a folder.
#pragma once

#include <cudabridge/cpp/secure_env.hpp>

#include <optional>
#include <sys/stat.h>
#include <string>

namespace cudabridge::nv {

struct library_choice {
    std::optional<std::string> path;  // the variable's library, when set and trusted
    std::string refused;              // why the variable's library is not loaded (set, untrusted)
};

inline library_choice library_from_environment(const char* variable) {
    library_choice c;
    const auto value = sdk::secure_env(variable);
    if (!value) return c;
    // A bare soname is found on the loader's own path; a file that is not there is nothing to
    // distrust (loading it fails, and says so). Anything else must pass the rule.
    struct stat st {};
    const bool judged = value->find('/') != std::string::npos && ::stat(value->c_str(), &st) == 0;
    if (auto why = judged ? sdk::untrusted_reason(*value) : std::nullopt) {
        c.refused = std::string(variable) + "=" + *value + " is not loaded: " + *why;
        return c;
    }
    c.path = *value;
    return c;
}

}  // namespace cudabridge::nv

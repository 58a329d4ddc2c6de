// Which backend the usb4 transport runs: the Linux one over sysfs when the machine has a
// Thunderbolt / USB4 domain, else the simulated fabric; a parameter can force either.
#pragma once

#include <filesystem>
#include <string>

namespace cudabridge::usb4 {

struct backend_choice {
    bool simulated = true;
    std::string reason;  // shown in logs and in `info`
};

// `requested` is the backend parameter: "auto", "sim" or "linux". Throws sdk::status_error
// (CB_ERR_INVALID_ARGUMENT) for another value, and (CB_ERR_NO_DEVICE) for "linux" without a
// domain.
backend_choice choose_backend(const std::string& requested, const std::filesystem::path& sysfs_root);

}  // namespace cudabridge::usb4

// Whether this machine has a Thunderbolt / USB4 domain, and a sentence saying what was found,
// for the backend choice (Linux backend with a domain, else the simulated fabric) in logs and
// `info`.
#pragma once

#include <filesystem>
#include <string>

namespace cudabridge::usb4::linux_sysfs {

// True when <root>/sys/bus/thunderbolt/devices holds at least one domain. `why`:
// "no /sys/bus/thunderbolt", "/sys/bus/thunderbolt has no domain: ...", or the domains found,
// "domain0 (security user)".
bool has_thunderbolt(const std::filesystem::path& root, std::string& why);

}  // namespace cudabridge::usb4::linux_sysfs

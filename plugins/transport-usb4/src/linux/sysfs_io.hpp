// Reading and writing sysfs attributes under a configurable root, so the same code runs on the
// real /sys and on the fixture trees the tests carry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::usb4::linux_sysfs {

namespace fs = std::filesystem;

// <root>/<absolute>, e.g. at("/tmp/fx", "/sys/bus/pci") -> /tmp/fx/sys/bus/pci.
fs::path at(const fs::path& root, std::string_view absolute);

// The attribute's text without trailing whitespace; nullopt when it is missing or unreadable
// (sysfs returns errors such as ENODATA from some attributes).
std::optional<std::string> read_attribute(const fs::path& file);

// An integer attribute ("0x10de", "4", "1"); base 0 accepts 0x-prefixed hex.
std::optional<std::uint64_t> read_unsigned(const fs::path& file, int base = 0);

// One write of `value`, as `echo -n value > file` does: no O_CREAT (a missing attribute is an
// error, never a new file), retried on EINTR. Returns 0 or the errno of open, write or close
// (sysfs reports the kernel's refusal from write).
int write_attribute(const fs::path& file, std::string_view value);

// Names in a folder, sorted; empty when it does not exist.
std::vector<std::string> list_names(const fs::path& dir);

// Where a link such as .../driver points, as a canonical path; nullopt when it does not resolve.
std::optional<fs::path> resolve(const fs::path& path);

// The last component of a symlink's target ("nvidia" for driver -> ../../bus/pci/drivers/nvidia);
// "" when `link` is not a symlink.
std::string link_target_name(const fs::path& link);

// "KEY=value" lines of a uevent file, the value of `key` or "".
std::string uevent_value(const fs::path& device_dir, std::string_view key);

}  // namespace cudabridge::usb4::linux_sysfs

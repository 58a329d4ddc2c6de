// The usb4 transport's calls into the Linux sysfs backend, in the shape the table wants.
#pragma once

#include <cudabridge/transport.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cudabridge::usb4 {

std::vector<cb_endpoint_info> linux_enumerate(const std::filesystem::path& root);
cb_status linux_authorize(const std::filesystem::path& root, const std::string& id, cb_auth_state level,
                          const uint8_t* key, size_t key_len, std::string& message);
cb_status linux_deauthorize(const std::filesystem::path& root, const std::string& id, std::string& message);

}  // namespace cudabridge::usb4

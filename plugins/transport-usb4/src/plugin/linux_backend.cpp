#include "plugin/linux_backend.hpp"

#include "sysfs_authorize.hpp"
#include "sysfs_endpoints.hpp"

#include <span>

namespace cudabridge::usb4 {

std::vector<cb_endpoint_info> linux_enumerate(const std::filesystem::path& root) {
    return linux_sysfs::enumerate_endpoints(root);
}

cb_status linux_authorize(const std::filesystem::path& root, const std::string& id, cb_auth_state level,
                          const uint8_t* key, size_t key_len, std::string& message) {
    std::span<const uint8_t> k;
    if (key != nullptr) k = std::span<const uint8_t>(key, key_len);
    cb_status st = linux_sysfs::authorize(root, id, level, k, message);
    if (st == CB_OK) message = "device " + id + " authorized";
    return st;
}

cb_status linux_deauthorize(const std::filesystem::path& root, const std::string& id, std::string& message) {
    cb_status st = linux_sysfs::deauthorize(root, id, message);
    if (st == CB_OK) message = "device " + id + " deauthorized";
    return st;
}

}  // namespace cudabridge::usb4

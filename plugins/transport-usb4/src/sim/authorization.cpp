#include "sim/authorization.hpp"

#include <cstdio>

namespace cudabridge::usb4 {

namespace {

// The Thunderbolt secure-connect key is 32 bytes (sysfs-bus-thunderbolt: "key").
constexpr size_t key_bytes = 32;

auth_result refuse(cb_status status, std::string message) { return {status, std::move(message)}; }

bool tunnels_pcie(cb_security_level level) {
    return level == CB_SECURITY_NONE || level == CB_SECURITY_USER || level == CB_SECURITY_SECURE;
}

}  // namespace

std::string key_to_hex(const uint8_t* key, size_t len) {
    std::string out;
    char buf[3];
    for (size_t i = 0; i < len; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", key[i]);
        out += buf;
    }
    return out;
}

bool pcie_allowed(const domain_layout& domain, const enclosure_layout& enclosure) {
    if (!enclosure.plugged || !tunnels_pcie(domain.security)) return false;
    return domain.security == CB_SECURITY_NONE || enclosure.authorized != CB_AUTH_NONE;
}

auth_result apply_authorization(const domain_layout& domain, enclosure_layout& enclosure, cb_auth_state level,
                                const uint8_t* key, size_t key_len) {
    const std::string who = "device " + enclosure.id;
    if (!enclosure.plugged) return refuse(CB_ERR_NO_DEVICE, who + " is not plugged in");
    if (!tunnels_pcie(domain.security))
        return refuse(CB_ERR_PERMISSION, "domain" + std::to_string(domain.index) + " is at security level " +
                                             security_key(domain.security) +
                                             ", which allows no PCIe tunnels: change it in the firmware setup");
    if (level != CB_AUTH_AUTHORIZED && level != CB_AUTH_SECURE)
        return refuse(CB_ERR_INVALID_ARGUMENT, "authorization level must be 1 or 2");
    if (key != nullptr && key_len != key_bytes)
        return refuse(CB_ERR_INVALID_ARGUMENT, "a Thunderbolt key is 32 bytes, not " + std::to_string(key_len));

    switch (domain.security) {
    case CB_SECURITY_NONE:
        enclosure.authorized = CB_AUTH_AUTHORIZED;
        return {CB_OK, who + " authorized (security level none authorizes every device)"};
    case CB_SECURITY_USER:
        enclosure.authorized = CB_AUTH_AUTHORIZED;
        return {CB_OK, who + " authorized"};
    default:
        break;  // secure
    }
    if (level == CB_AUTH_AUTHORIZED) {
        if (key == nullptr)
            return refuse(CB_ERR_PERMISSION, "domain" + std::to_string(domain.index) +
                                                 " is at security level secure: enroll " + who +
                                                 " with a 32-byte key first");
        enclosure.key_hex = key_to_hex(key, key_len);
        enclosure.authorized = CB_AUTH_AUTHORIZED;
        return {CB_OK, who + " enrolled: its key is stored and later connections challenge it"};
    }
    if (enclosure.key_hex.empty()) return refuse(CB_ERR_PERMISSION, who + " has no key (ENOKEY): enroll it first");
    if (key == nullptr || key_to_hex(key, key_len) != enclosure.key_hex)
        return refuse(CB_ERR_PERMISSION,
                      "the key was rejected by " + who + " (EKEYREJECTED): forget and re-enroll the device");
    enclosure.authorized = CB_AUTH_SECURE;
    return {CB_OK, who + " authorized: key challenge passed"};
}

auth_result apply_deauthorization(const domain_layout& domain, enclosure_layout& enclosure) {
    if (!enclosure.plugged) return refuse(CB_ERR_NO_DEVICE, "device " + enclosure.id + " is not plugged in");
    if (!domain.deauthorization)
        return refuse(CB_ERR_UNSUPPORTED, "domain" + std::to_string(domain.index) +
                                              " does not support deauthorization: unplug the device instead");
    if (domain.security == CB_SECURITY_NONE)
        return refuse(CB_ERR_UNSUPPORTED, "security level none keeps every device authorized");
    enclosure.authorized = CB_AUTH_NONE;
    return {CB_OK, "device " + enclosure.id + " deauthorized: its PCIe tunnel is torn down"};
}

}  // namespace cudabridge::usb4

// Authorizing and deauthorizing Thunderbolt device routers through their `authorized` and `key`
// attributes (Documentation/ABI/testing/sysfs-bus-thunderbolt; drivers/thunderbolt/switch.c,
// tb_switch_set_authorized).
#pragma once

#include <cudabridge/transport.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace cudabridge::usb4::linux_sysfs {

// `device_id`: a router's unique_id or its sysfs name ("0-1").
//  - level CB_AUTH_AUTHORIZED, no key: writes "1" (security levels none, user, usbonly).
//  - level CB_AUTH_AUTHORIZED with a 32-byte key: writes the key (64 hex digits) to `key`, then
//    "1": the kernel stores the key in the device (first enrollment, secure level).
//  - level CB_AUTH_SECURE with the 32-byte key: writes the key, then "2": the kernel challenges
//    the device with it (later connections). Which of the two is due is the caller's knowledge
//    (bolt keeps it in its database; the glue keeps it in the store).
// Refused before any write: unknown device (CB_ERR_NOT_FOUND); a host router, a bad level or
// key length (CB_ERR_INVALID_ARGUMENT); a domain at dponly or nopcie, where no PCIe tunnel may
// exist and the kernel hides `authorized`, or a key where the device has no `key` attribute
// (CB_ERR_UNSUPPORTED). Already authorized: CB_OK without a write (the kernel would answer
// EINVAL). Write failures carry the advice of describe_write_error.
cb_status authorize(const std::filesystem::path& root, std::string_view device_id, cb_auth_state level,
                    std::span<const std::uint8_t> key, std::string& error);

// Writes "0" where the domain's `deauthorization` is 1 (Linux 5.12+, software connection
// manager, levels user and secure); else CB_ERR_UNSUPPORTED saying why. Not authorized: CB_OK.
// The kernel tears down the PCIe tunnel at once: remove the PCI functions first (safe_remove).
cb_status deauthorize(const std::filesystem::path& root, std::string_view device_id, std::string& error);

// 64 lowercase hex digits for a 32-byte key, as the kernel's key attribute takes it.
std::string key_hex(std::span<const std::uint8_t> key);

}  // namespace cudabridge::usb4::linux_sysfs

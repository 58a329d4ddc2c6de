#include "sysfs_write_errors.hpp"

#include <cerrno>
#include <cstring>

namespace cudabridge::usb4::linux_sysfs {
namespace {

bool is_thunderbolt(sysfs_operation op) {
    return op == sysfs_operation::authorize || op == sysfs_operation::challenge || op == sysfs_operation::store_key ||
           op == sysfs_operation::deauthorize;
}

const char* verb(sysfs_operation op) {
    switch (op) {
    case sysfs_operation::authorize:
        return "authorizing";
    case sysfs_operation::challenge:
        return "challenging the key of";
    case sysfs_operation::store_key:
        return "storing the key of";
    case sysfs_operation::deauthorize:
        return "deauthorizing";
    case sysfs_operation::unbind_driver:
        return "unbinding the driver of";
    case sysfs_operation::remove_device:
        return "removing";
    case sysfs_operation::rescan_bus:
        return "rescanning";
    }
    return "writing";
}

// What to run instead when we lack the privilege: boltd holds the right to authorize for
// ordinary users (bolt's D-Bus policy); PCI removal needs root.
std::string permission_advice(sysfs_operation op, std::string_view target) {
    const std::string t(target);
    switch (op) {
    case sysfs_operation::authorize:
    case sysfs_operation::challenge:
        return "run as root, or use `boltctl authorize " + t + "`";
    case sysfs_operation::store_key:
        return "run as root, or use `boltctl enroll " + t + "`";
    case sysfs_operation::deauthorize:
        return "run as root, or use `boltctl forget " + t + "` and unplug the device";
    default:
        return "run as root (for example with sudo)";
    }
}

}  // namespace

write_failure describe_write_error(int error, sysfs_operation operation, std::string_view target,
                                   const std::filesystem::path& file) {
    const std::string t(target);
    const std::string what = std::string(verb(operation)) + " " + t + " failed";
    const std::string where = " (writing " + file.string() + ": " + std::strerror(error) + ")";
    switch (error) {
    case EACCES:
    case EPERM:
        return {CB_ERR_PERMISSION, what + ": permission denied; " + permission_advice(operation, target) + where};
    case EROFS:
        return {CB_ERR_PERMISSION, what + ": sysfs is mounted read-only here (a container?); run on the host" + where};
#ifdef ENOKEY
    case ENOKEY:
        return {CB_ERR_PERMISSION, what +
                                       ": the device has no key: enroll it first (authorize with level 1 and a new "
                                       "32-byte key, or `boltctl enroll " +
                                       t + "`)" + where};
#endif
#ifdef EKEYREJECTED
    case EKEYREJECTED:
        return {CB_ERR_PERMISSION, what + ": the key was rejected: forget and re-enroll the device (`boltctl forget " +
                                       t + "`, then `boltctl enroll " + t + "`)" + where};
#endif
    case ENOENT:
        return {CB_ERR_NOT_FOUND, what + ": the attribute is gone; was the device unplugged?" + where};
    case ENODEV:
    case ENXIO:
        return {CB_ERR_DEVICE_LOST, what + ": the device disappeared; replug it and retry" + where};
    case EBUSY:
        if (operation == sysfs_operation::store_key)
            return {CB_ERR_BUSY, what + ": a key can only be stored while the device is not authorized" + where};
        return {CB_ERR_BUSY, what + ": the kernel is busy with this device; retry" + where};
    case EINVAL:
        if (is_thunderbolt(operation))
            return {CB_ERR_INVALID_ARGUMENT, what +
                                                 ": the kernel refused it (already in that state, a parent device not "
                                                 "authorized yet, or not allowed at this security level)" +
                                                 where};
        return {CB_ERR_INVALID_ARGUMENT, what + ": the kernel refused the value" + where};
    case ETIMEDOUT:
        return {CB_ERR_TIMEOUT, what + ": the Thunderbolt connection manager did not answer; replug and retry" + where};
    case EOPNOTSUPP:
        return {CB_ERR_UNSUPPORTED, what + ": not supported by this system" + where};
    case ENOMEM:
        return {CB_ERR_OUT_OF_MEMORY, what + where};
    default:
        return {CB_ERR_INTERNAL, what + where};
    }
}

}  // namespace cudabridge::usb4::linux_sysfs

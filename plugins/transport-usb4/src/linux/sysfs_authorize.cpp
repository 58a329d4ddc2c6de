#include "sysfs_authorize.hpp"

#include "sysfs_io.hpp"
#include "sysfs_tb_devices.hpp"
#include "sysfs_write_errors.hpp"

namespace cudabridge::usb4::linux_sysfs {
namespace {

constexpr std::size_t key_size = 32;  // TB_SWITCH_KEY_SIZE

struct located {
    tb_fabric fabric;
    const tb_router* router = nullptr;
    const tb_domain* domain = nullptr;
};

cb_status locate(const std::filesystem::path& root, std::string_view id, located& out, std::string& error) {
    out.fabric = scan_thunderbolt(root);
    out.router = out.fabric.find_router(id);
    if (!out.router) {
        error = "no Thunderbolt device '" + std::string(id) + "' in /sys/bus/thunderbolt/devices";
        return CB_ERR_NOT_FOUND;
    }
    out.domain = out.fabric.domain(out.router->domain);
    if (out.router->is_host()) {
        error = out.router->id() + " is the host router; only device routers are authorized";
        return CB_ERR_INVALID_ARGUMENT;
    }
    return CB_OK;
}

std::string label(const tb_router& r) {
    std::string name = r.device_name.empty() ? r.name : r.vendor_name + " " + r.device_name;
    return name + " (" + r.id() + ")";
}

// dponly and nopcie: the kernel hides `authorized` and no PCIe tunnel can be made at all.
bool pcie_forbidden(const tb_domain* d, std::string& why) {
    if (!d) return false;
    if (d->security == CB_SECURITY_DPONLY)
        why = d->name +
              " is at security level dponly: only DisplayPort and USB are tunnelled, no "
              "PCIe, so an eGPU cannot be authorized; set the Thunderbolt security level "
              "to user or secure in the firmware setup";
    else if (d->security == CB_SECURITY_NOPCIE)
        why = d->name +
              " is at security level nopcie: PCIe tunnelling is disabled in the firmware "
              "setup; enable it there to use an eGPU";
    else
        return false;
    return true;
}

cb_status write_or_explain(const std::filesystem::path& file, std::string_view value, sysfs_operation op,
                           const tb_router& r, std::string& error) {
    const int e = write_attribute(file, value);
    if (e == 0) return CB_OK;
    auto failure = describe_write_error(e, op, r.id(), file);
    error = failure.message;
    return failure.status;
}

}  // namespace

std::string key_hex(std::span<const std::uint8_t> key) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(key.size() * 2);
    for (auto b : key) {
        hex += digits[b >> 4];
        hex += digits[b & 0xf];
    }
    return hex;
}

cb_status authorize(const std::filesystem::path& root, std::string_view device_id, cb_auth_state level,
                    std::span<const std::uint8_t> key, std::string& error) {
    if (level != CB_AUTH_AUTHORIZED && level != CB_AUTH_SECURE) {
        error = "authorization level must be 1 (authorize / enroll a key) or 2 (challenge a key)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (!key.empty() && key.size() != key_size) {
        error = "a Thunderbolt key is 32 bytes, not " + std::to_string(key.size());
        return CB_ERR_INVALID_ARGUMENT;
    }
    located at_device;
    if (cb_status s = locate(root, device_id, at_device, error); s != CB_OK) return s;
    const tb_router& r = *at_device.router;

    if (pcie_forbidden(at_device.domain, error)) return CB_ERR_UNSUPPORTED;
    if (!r.has_authorized) {
        error = label(r) + " has no authorized attribute: the kernel does not allow authorizing it";
        return CB_ERR_UNSUPPORTED;
    }
    if (r.authorized != 0) return CB_OK;  // already; a second write would get EINVAL

    if (level == CB_AUTH_SECURE && key.empty()) {
        error = "a key challenge (level 2) needs the 32-byte key enrolled earlier for " + label(r);
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (!key.empty()) {
        if (!r.has_key) {
            const std::string sec = at_device.domain ? at_device.domain->security_text : "unknown";
            error = label(r) + " takes no key (domain security " + sec +
                    ", or the device lacks secure connect): authorize it without a key";
            return CB_ERR_UNSUPPORTED;
        }
        if (cb_status s = write_or_explain(r.dir / "key", key_hex(key), sysfs_operation::store_key, r, error);
            s != CB_OK)
            return s;
    }
    const bool challenge = level == CB_AUTH_SECURE;
    return write_or_explain(r.dir / "authorized", challenge ? "2" : "1",
                            challenge ? sysfs_operation::challenge : sysfs_operation::authorize, r, error);
}

cb_status deauthorize(const std::filesystem::path& root, std::string_view device_id, std::string& error) {
    located at_device;
    if (cb_status s = locate(root, device_id, at_device, error); s != CB_OK) return s;
    const tb_router& r = *at_device.router;
    if (pcie_forbidden(at_device.domain, error)) return CB_ERR_UNSUPPORTED;
    if (!at_device.domain || !at_device.domain->deauthorization) {
        const std::string name = at_device.domain ? at_device.domain->name : "its domain";
        error = name +
                " does not support deauthorization (needs Linux 5.12+, the software "
                "connection manager and security level user or secure): remove the PCI "
                "functions and unplug " +
                label(r) + " instead";
        return CB_ERR_UNSUPPORTED;
    }
    if (!r.has_authorized) {
        error = label(r) + " has no authorized attribute";
        return CB_ERR_UNSUPPORTED;
    }
    if (r.authorized == 0) return CB_OK;
    return write_or_explain(r.dir / "authorized", "0", sysfs_operation::deauthorize, r, error);
}

}  // namespace cudabridge::usb4::linux_sysfs

#include "sysfs_pci_removal.hpp"

#include "sysfs_fabric_view.hpp"
#include "sysfs_io.hpp"
#include "sysfs_write_errors.hpp"

#include <algorithm>
#include <cctype>

namespace cudabridge::usb4::linux_sysfs {
namespace {

// A driver name taken from a symlink becomes a path component: keep it to what kernel module
// and driver names use.
bool is_safe_driver_name(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
}

std::string slot_of(const std::string& address) { return address.substr(0, address.size() - 2); }

cb_status remove_one(const std::filesystem::path& root, const pci_device& d, std::vector<std::string>& steps,
                     std::string& error) {
    const std::string driver = link_target_name(d.dir / "driver");
    if (!driver.empty()) {
        if (!is_safe_driver_name(driver)) {
            error = "refusing to unbind " + d.address + ": odd driver name '" + driver + "'";
            return CB_ERR_INTERNAL;
        }
        const auto unbind = at(root, "/sys/bus/pci/drivers") / driver / "unbind";
        if (int e = write_attribute(unbind, d.address)) {
            auto f = describe_write_error(e, sysfs_operation::unbind_driver, d.address, unbind);
            error = f.message;
            return f.status;
        }
        steps.push_back("unbound " + d.address + " from driver " + driver);
    } else {
        steps.push_back(d.address + " has no driver bound");
    }
    const auto remove = d.dir / "remove";
    if (int e = write_attribute(remove, "1")) {
        auto f = describe_write_error(e, sysfs_operation::remove_device, d.address, remove);
        error = f.message + (driver.empty() ? "" : "; its driver is already unbound, rescan to rebind");
        return f.status;
    }
    steps.push_back("removed " + d.address + " from the PCI bus");
    return CB_OK;
}

}  // namespace

cb_status safe_remove(const std::filesystem::path& root, std::string_view pci_id, std::vector<std::string>& steps,
                      std::string& error) {
    const std::string address(pci_id);
    if (!check_pci_address(address, error)) return CB_ERR_INVALID_ARGUMENT;
    const fabric_view view = read_fabric(root);
    const pci_map all = view.pci.empty() ? scan_pci_devices(root) : pci_map{};
    const pci_map& devices = view.pci.empty() ? all : view.pci;
    if (devices.find(address) == devices.end()) {
        error = "no PCI function " + address + " in /sys/bus/pci/devices";
        return CB_ERR_NOT_FOUND;
    }
    if (!view.tunnelled(address)) {
        error = "refusing to remove " + address + ": it is not behind a Thunderbolt/USB4 tunnel (an internal device)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    // Every function of the same device, the one asked for last.
    std::vector<const pci_device*> order;
    for (const auto& [a, d] : devices)
        if (a != address && slot_of(a) == slot_of(address)) order.push_back(&d);
    std::reverse(order.begin(), order.end());
    order.push_back(&devices.at(address));
    for (const auto* d : order)
        if (cb_status s = remove_one(root, *d, steps, error); s != CB_OK) return s;
    return CB_OK;
}

cb_status rescan(const std::filesystem::path& root, std::vector<std::string>& steps, std::string& error) {
    const auto file = at(root, "/sys/bus/pci/rescan");
    if (int e = write_attribute(file, "1")) {
        auto f = describe_write_error(e, sysfs_operation::rescan_bus, "the PCI buses", file);
        error = f.message;
        return f.status;
    }
    steps.push_back("rescanned the PCI buses: removed devices come back");
    return CB_OK;
}

}  // namespace cudabridge::usb4::linux_sysfs

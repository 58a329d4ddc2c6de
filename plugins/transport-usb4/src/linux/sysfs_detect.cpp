#include "sysfs_detect.hpp"

#include "sysfs_tb_devices.hpp"

namespace cudabridge::usb4::linux_sysfs {

bool has_thunderbolt(const std::filesystem::path& root, std::string& why) {
    const std::string where = root == "/" ? "" : " (sysfs root " + root.string() + ")";
    const tb_fabric fabric = scan_thunderbolt(root);
    if (!fabric.bus_present) {
        why = "no /sys/bus/thunderbolt" + where;
        return false;
    }
    if (fabric.domains.empty()) {
        why =
            "/sys/bus/thunderbolt has no domain: no Thunderbolt/USB4 host controller is bound "
            "to the thunderbolt driver" +
            where;
        return false;
    }
    why.clear();
    for (const auto& d : fabric.domains) {
        if (!why.empty()) why += ", ";
        why += d.name + " (security " + (d.security_text.empty() ? "unknown" : d.security_text) + ")";
    }
    why += where;
    return true;
}

}  // namespace cudabridge::usb4::linux_sysfs

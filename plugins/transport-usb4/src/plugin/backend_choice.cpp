#include "plugin/backend_choice.hpp"

#include "sysfs_detect.hpp"

#include <cudabridge/cpp/host.hpp>

namespace cudabridge::usb4 {

backend_choice choose_backend(const std::string& requested, const std::filesystem::path& sysfs_root) {
    std::string why;
    const bool found = linux_sysfs::has_thunderbolt(sysfs_root, why);
    if (requested == "sim") return {true, "the simulator was asked for (backend=sim); the machine has " + why};
    if (requested == "linux") {
        if (!found)
            throw sdk::status_error(CB_ERR_NO_DEVICE, "backend=linux, but there is no Thunderbolt/USB4 domain: " + why);
        return {false, "backend=linux: " + why};
    }
    if (requested != "auto")
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "backend must be auto, sim or linux, not '" + requested + "'");
    if (found) return {false, "a Thunderbolt/USB4 domain exists: " + why};
    return {true, "no Thunderbolt/USB4 domain on this machine (" + why + "), so the simulated fabric runs"};
}

}  // namespace cudabridge::usb4

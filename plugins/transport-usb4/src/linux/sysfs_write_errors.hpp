// What a failed sysfs write means and what the user should do about it. The kernel reports a
// refused store through errno; this turns it into a status and a sentence with advice.
#pragma once

#include <cudabridge/abi.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace cudabridge::usb4::linux_sysfs {

// Which write failed: the advice depends on it (boltctl for Thunderbolt writes, root for PCI).
enum class sysfs_operation {
    authorize,      // authorized <- 1
    challenge,      // authorized <- 2 (with a key)
    store_key,      // key <- 64 hex digits
    deauthorize,    // authorized <- 0
    unbind_driver,  // drivers/<drv>/unbind <- address
    remove_device,  // devices/<addr>/remove <- 1
    rescan_bus      // bus/pci/rescan <- 1
};

struct write_failure {
    cb_status status = CB_ERR_INTERNAL;
    std::string message;
};

// `target` names the thing written to (a device's unique_id, a PCI address); `file` is the
// attribute. ENOKEY and EKEYREJECTED are the kernel's answers to a key challenge
// (Documentation/ABI/testing/sysfs-bus-thunderbolt, "authorized").
write_failure describe_write_error(int error, sysfs_operation operation, std::string_view target,
                                   const std::filesystem::path& file);

}  // namespace cudabridge::usb4::linux_sysfs

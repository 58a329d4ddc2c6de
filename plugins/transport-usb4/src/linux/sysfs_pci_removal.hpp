// Safe removal of a tunnelled PCI device and bringing it back, the sequence all-ways-egpu
// calls "the correct way to unplug the eGPU" (all-ways-egpu removeIDs(), v0.54.2, and issue #27;
// the sysfs-bus-pci ABI documents unbind, remove and rescan):
//   echo <addr> > /sys/bus/pci/drivers/<drv>/unbind ; echo 1 > /sys/bus/pci/devices/<addr>/remove
//   later: echo 1 > /sys/bus/pci/rescan
// Before calling, the host must have closed every handle on the device (an open NVIDIA fd makes
// the unbind hang: NVIDIA open-gpu-kernel-modules #894; docs/removal-and-pcie-errors.md §1.4).
#pragma once

#include <cudabridge/abi.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::usb4::linux_sysfs {

// Removes every function of the device `pci_id` belongs to (a GPU's audio function goes with
// it, as all-ways-egpu removes all the eGPU's functions), the other functions first: for each,
// unbind its driver if one is bound, then write 1 to remove. Refuses a function that is not
// behind a Thunderbolt/USB4 tunnel (CB_ERR_INVALID_ARGUMENT): removing an internal device is
// never what this is for. `steps` receives one line per thing done; the first failure stops the
// sequence and `error` says which step failed and what to do.
cb_status safe_remove(const std::filesystem::path& root, std::string_view pci_id, std::vector<std::string>& steps,
                      std::string& error);

// Writes 1 to /sys/bus/pci/rescan: the kernel re-discovers removed devices.
cb_status rescan(const std::filesystem::path& root, std::vector<std::string>& steps, std::string& error);

}  // namespace cudabridge::usb4::linux_sysfs

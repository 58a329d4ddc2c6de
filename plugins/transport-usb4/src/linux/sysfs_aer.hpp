// PCIe Advanced Error Reporting counters of one device: aer_dev_correctable, aer_dev_nonfatal,
// aer_dev_fatal, each "<Name> <count>" lines ending with TOTAL_ERR_COR / TOTAL_ERR_NONFATAL /
// TOTAL_ERR_FATAL (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats, Linux 4.19+).
// One ERR_* message can report several errors, so the TOTAL line is read, not the sum.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace cudabridge::usb4::linux_sysfs {

struct aer_counters {
    bool available = false;  // the device has the AER statistics files
    std::uint64_t correctable = 0;
    std::uint64_t nonfatal = 0;
    std::uint64_t fatal = 0;
    std::uint64_t uncorrectable() const { return nonfatal + fatal; }
};

// The count on the `total_name` line ("TOTAL_ERR_COR"); when the line is missing, the sum of the
// other lines; nullopt when nothing parses.
std::optional<std::uint64_t> parse_aer_total(std::string_view text, std::string_view total_name);

aer_counters read_aer_counters(const std::filesystem::path& device_dir);

}  // namespace cudabridge::usb4::linux_sysfs

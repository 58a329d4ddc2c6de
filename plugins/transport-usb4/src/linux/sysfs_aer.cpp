#include "sysfs_aer.hpp"

#include "sysfs_io.hpp"

#include <charconv>

namespace cudabridge::usb4::linux_sysfs {

std::optional<std::uint64_t> parse_aer_total(std::string_view text, std::string_view total_name) {
    std::optional<std::uint64_t> total;
    std::uint64_t sum = 0;
    bool any = false;
    while (!text.empty()) {
        const auto eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        const auto space = line.rfind(' ');
        if (space == std::string_view::npos) continue;
        const std::string_view name = line.substr(0, space);
        const std::string_view number = line.substr(space + 1);
        std::uint64_t value = 0;
        auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
        if (ec != std::errc{} || end != number.data() + number.size()) continue;
        if (name == total_name)
            total = value;
        else {
            sum += value;
            any = true;
        }
    }
    if (total) return total;
    if (any) return sum;
    return std::nullopt;
}

aer_counters read_aer_counters(const std::filesystem::path& device_dir) {
    aer_counters c;
    struct file_total {
        const char* file;
        const char* total;
        std::uint64_t aer_counters::*field;
    };
    static constexpr file_total files[] = {
        {"aer_dev_correctable", "TOTAL_ERR_COR", &aer_counters::correctable},
        {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", &aer_counters::nonfatal},
        {"aer_dev_fatal", "TOTAL_ERR_FATAL", &aer_counters::fatal},
    };
    for (const auto& f : files) {
        auto text = read_attribute(device_dir / f.file);
        if (!text) continue;
        c.available = true;
        if (auto total = parse_aer_total(*text, f.total)) c.*(f.field) = *total;
    }
    return c;
}

}  // namespace cudabridge::usb4::linux_sysfs

#include "sysfs_pcie_link.hpp"

#include "sysfs_io.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace cudabridge::usb4::linux_sysfs {

double parse_link_speed_gts(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (text.empty() || !(text.front() >= '0' && text.front() <= '9')) return 0;
    const std::string s(text);
    char* end = nullptr;
    const double value = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || !(value > 0)) return 0;
    return value;
}

std::uint32_t pcie_generation(double gts) {
    // Per-lane signalling rate of each generation (PCIe base specifications 1.0 to 6.0).
    static constexpr double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (std::uint32_t i = 0; i < std::size(rates); ++i)
        if (std::fabs(gts - rates[i]) < 0.05) return i + 1;
    return 0;
}

namespace {

pcie_link_figures read_figures(const std::filesystem::path& dir, const char* speed_name, const char* width_name) {
    pcie_link_figures f;
    if (auto speed = read_attribute(dir / speed_name)) {
        f.speed_gts = parse_link_speed_gts(*speed);
        f.generation = pcie_generation(f.speed_gts);
    }
    if (auto width = read_unsigned(dir / width_name, 10)) f.width = static_cast<std::uint32_t>(*width);
    return f;
}

}  // namespace

pcie_link_state read_pcie_link(const std::filesystem::path& device_dir) {
    pcie_link_state state;
    state.current = read_figures(device_dir, "current_link_speed", "current_link_width");
    state.max = read_figures(device_dir, "max_link_speed", "max_link_width");
    state.available =
        state.current.speed_gts > 0 || state.current.width > 0 || state.max.speed_gts > 0 || state.max.width > 0;
    return state;
}

}  // namespace cudabridge::usb4::linux_sysfs

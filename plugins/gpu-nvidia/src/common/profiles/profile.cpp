#include "common/profiles/profile.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace cudabridge::nv {

const std::vector<std::string>& profile_field_names() {
    static const std::vector<std::string> names = {"key",
                                                   "name",
                                                   "pci_device_id",
                                                   "alias_pci_device_ids",
                                                   "architecture",
                                                   "chip",
                                                   "compute_major",
                                                   "compute_minor",
                                                   "sm_count",
                                                   "cuda_cores",
                                                   "vram_bytes",
                                                   "memory_type",
                                                   "memory_bus_width_bits",
                                                   "l2_cache_bytes",
                                                   "memory_bandwidth_gbps",
                                                   "power_default_w",
                                                   "power_min_w",
                                                   "power_max_w",
                                                   "base_clock_mhz",
                                                   "boost_clock_mhz",
                                                   "max_clock_mhz",
                                                   "memory_clock_mhz",
                                                   "max_operating_temp_c",
                                                   "slowdown_temp_c",
                                                   "shutdown_temp_c",
                                                   "fan_curve",
                                                   "thermal_resistance_c_per_w",
                                                   "ambient_temp_c",
                                                   "min_link_bandwidth_gbps",
                                                   "resizable_bar",
                                                   "sources"};
    return names;
}

const gpu_profile* find_profile_by_key(std::string_view key) {
    for (const auto& p : all_profiles())
        if (p.key == key) return &p;
    return nullptr;
}

const gpu_profile* find_profile_by_pci_id(uint16_t pci_device_id) {
    for (const auto& p : all_profiles())
        if (p.pci_device_id == pci_device_id) return &p;
    for (const auto& p : all_profiles())
        if (std::find(p.alias_pci_device_ids.begin(), p.alias_pci_device_ids.end(), pci_device_id) !=
            p.alias_pci_device_ids.end())
            return &p;
    return nullptr;
}

namespace {

template <typename T>
void check_range(std::vector<std::string>& problems, const char* field, T value, T lo, T hi, const char* unit) {
    if (!(value >= lo && value <= hi)) {  // also catches NaN
        problems.push_back(std::string(field) + ": " + std::to_string(value) + " " + unit + " is outside " +
                           std::to_string(lo) + ".." + std::to_string(hi) + " " + unit);
    }
}

bool valid_key(std::string_view key) {
    if (key.empty() || key.size() > 64 || key.front() == '-' || key.back() == '-') return false;
    return std::all_of(key.begin(), key.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

}  // namespace

std::vector<std::string> validate(const gpu_profile& p) {
    std::vector<std::string> problems;
    auto problem = [&](const std::string& field, const std::string& what) { problems.push_back(field + ": " + what); };

    if (!valid_key(p.key)) problem("key", "'" + p.key + "' must be 1-64 characters of a-z, 0-9 and '-'");
    if (p.name.empty()) problem("name", "must not be empty");
    if (p.pci_device_id == 0 || p.pci_device_id == 0xffff)
        problem("pci_device_id", "0x0000 and 0xffff are not device ids");
    for (uint16_t id : p.alias_pci_device_ids)
        if (id == 0 || id == 0xffff || id == p.pci_device_id)
            problem("alias_pci_device_ids", "invalid or repeated id " + std::to_string(id));
    static const std::set<std::string, std::less<>> architectures = {"Turing", "Ampere", "Ada Lovelace", "Hopper",
                                                                     "Blackwell"};
    if (!architectures.contains(p.architecture))
        problem("architecture",
                "'" + p.architecture + "' is not one of Turing, Ampere, Ada Lovelace, Hopper, Blackwell");
    if (p.chip.empty()) problem("chip", "must not be empty");
    check_range(problems, "compute_major", p.compute_major, 7, 15, "");
    check_range(problems, "compute_minor", p.compute_minor, 0, 9, "");
    check_range<uint32_t>(problems, "sm_count", p.sm_count, 1, 1024, "SMs");
    check_range<uint32_t>(problems, "cuda_cores", p.cuda_cores, 64, 131072, "cores");
    if (p.sm_count != 0 && p.cuda_cores != p.sm_count * 64 && p.cuda_cores != p.sm_count * 128)
        problem("cuda_cores", "must be 64 or 128 per SM (sm_count " + std::to_string(p.sm_count) + ")");
    constexpr uint64_t MiB = 1ull << 20;
    check_range<uint64_t>(problems, "vram_bytes", p.vram_bytes, 256 * MiB, 1ull << 40, "bytes");
    if (p.vram_bytes % MiB != 0) problem("vram_bytes", "must be a whole number of MiB");
    if (p.memory_type.empty()) problem("memory_type", "must not be empty");
    check_range<uint32_t>(problems, "memory_bus_width_bits", p.memory_bus_width_bits, 32, 8192, "bits");
    if (p.memory_bus_width_bits % 32 != 0) problem("memory_bus_width_bits", "must be a multiple of 32 bits");
    check_range(problems, "memory_bandwidth_gbps", p.memory_bandwidth_gbps, 10.0, 20000.0, "GB/s");
    check_range(problems, "power_default_w", p.power_default_w, 10.0, 2000.0, "W");
    check_range(problems, "power_min_w", p.power_min_w, 5.0, 2000.0, "W");
    check_range(problems, "power_max_w", p.power_max_w, 10.0, 2000.0, "W");
    if (!(p.power_min_w <= p.power_default_w && p.power_default_w <= p.power_max_w))
        problem("power_default_w", "must lie within power_min_w..power_max_w");
    check_range<uint32_t>(problems, "base_clock_mhz", p.base_clock_mhz, 100, 5000, "MHz");
    check_range<uint32_t>(problems, "boost_clock_mhz", p.boost_clock_mhz, 100, 5000, "MHz");
    check_range<uint32_t>(problems, "max_clock_mhz", p.max_clock_mhz, 100, 5000, "MHz");
    if (!(p.base_clock_mhz <= p.boost_clock_mhz && p.boost_clock_mhz <= p.max_clock_mhz))
        problem("boost_clock_mhz", "clocks must satisfy base <= boost <= max");
    check_range<uint32_t>(problems, "memory_clock_mhz", p.memory_clock_mhz, 100, 40000, "MHz");
    check_range(problems, "max_operating_temp_c", p.max_operating_temp_c, 40.0, 120.0, "C");
    check_range(problems, "slowdown_temp_c", p.slowdown_temp_c, 40.0, 125.0, "C");
    check_range(problems, "shutdown_temp_c", p.shutdown_temp_c, 40.0, 130.0, "C");
    if (!(p.max_operating_temp_c < p.slowdown_temp_c && p.slowdown_temp_c < p.shutdown_temp_c))
        problem("slowdown_temp_c", "temperatures must satisfy max-operating < slowdown < shutdown");
    for (size_t i = 0; i < p.fan_curve.size(); ++i) {
        const auto& pt = p.fan_curve[i];
        const std::string at = "fan_curve[" + std::to_string(i) + "]";
        if (!(pt.temperature_c >= 0 && pt.temperature_c <= 130)) problem(at, "temperature_c outside 0..130 C");
        if (!(pt.percent >= 0 && pt.percent <= 100)) problem(at, "percent outside 0..100 %");
        if (i > 0 && !(pt.temperature_c > p.fan_curve[i - 1].temperature_c))
            problem(at, "temperatures must increase along the curve");
        if (i > 0 && !(pt.percent >= p.fan_curve[i - 1].percent))
            problem(at, "percent must not decrease along the curve");
    }
    if (p.l2_cache_bytes > (uint64_t{1} << 30)) problem("l2_cache_bytes", "must be at most 1 GiB");
    check_range(problems, "thermal_resistance_c_per_w", p.thermal_resistance_c_per_w, 0.005, 5.0, "C/W");
    check_range(problems, "ambient_temp_c", p.ambient_temp_c, -20.0, 60.0, "C");
    if (p.ambient_temp_c >= p.slowdown_temp_c) problem("ambient_temp_c", "must be below slowdown_temp_c");
    check_range(problems, "min_link_bandwidth_gbps", p.min_link_bandwidth_gbps, 0.1, 512.0, "GB/s");
    const auto& fields = profile_field_names();
    for (const auto& [field, text] : p.sources) {
        if (field == "sources" || std::find(fields.begin(), fields.end(), field) == fields.end())
            problem("sources", "'" + field + "' is not a profile field");
        if (text.empty()) problem("sources", "'" + field + "' has an empty source");
    }
    return problems;
}

}  // namespace cudabridge::nv

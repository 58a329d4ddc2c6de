// GPU model profiles: what the simulated NVIDIA GPU is built from, and the bounds settings are
// checked against. One profile per model, keyed by a short key ("rtx-5090") and by PCI device id
// (vendor 0x10de). Every figure carries its source in `sources` (field name -> text): a citation
// from docs/gpu-profiles.md (with its "(?)" mark where the reference
// marks the item unverified), "derived: <rule>" for figures computed by a rule documented in
// seed_profiles.cpp, or "model choice: <why>" for constants of the simulator's own models.
//
// Units are in the field names: _w watts, _mhz MHz, _c degrees Celsius, _gbps gigabytes per
// second (10^9 B/s), _bytes bytes, _bits bits, _c_per_w degrees Celsius per watt.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::nv {

struct fan_point {
    double temperature_c = 0;  // at or above this temperature ...
    double percent = 0;        // ... the fan runs at least this fast (linear between points)
    friend bool operator==(const fan_point&, const fan_point&) = default;
};

struct gpu_profile {
    std::string key;                             // "rtx-5090"
    std::string name;                            // "NVIDIA GeForce RTX 5090"
    uint16_t pci_device_id = 0;                  // vendor 0x10de
    std::vector<uint16_t> alias_pci_device_ids;  // same-spec variants (LHR, Rev.2, ...)
    std::string architecture;                    // "Ampere", "Ada Lovelace", "Hopper", "Blackwell"
    std::string chip;                            // "GB202"
    int compute_major = 0;
    int compute_minor = 0;
    uint32_t sm_count = 0;
    uint32_t cuda_cores = 0;
    uint64_t vram_bytes = 0;
    std::string memory_type;  // "GDDR7", "HBM2e", ...
    uint32_t memory_bus_width_bits = 0;
    uint64_t l2_cache_bytes = 0;  // 0: not known (cudaDevAttrL2CacheSize then reads 0)
    double memory_bandwidth_gbps = 0;
    double power_default_w = 0;
    double power_min_w = 0;
    double power_max_w = 0;
    uint32_t base_clock_mhz = 0;
    uint32_t boost_clock_mhz = 0;
    uint32_t max_clock_mhz = 0;
    uint32_t memory_clock_mhz = 0;  // as nvidia-smi reports it (data rate per pin / 2)
    double max_operating_temp_c = 0;
    double slowdown_temp_c = 0;
    double shutdown_temp_c = 0;
    std::vector<fan_point> fan_curve;            // empty: passively cooled (no fan readout)
    double thermal_resistance_c_per_w = 0;       // model: steady temp = ambient + power * this
    double ambient_temp_c = 0;                   // model
    double min_link_bandwidth_gbps = 0;          // the slowest host link it should run on
    bool resizable_bar = false;                  // BAR1 may span all of VRAM (else 256 MiB)
    std::map<std::string, std::string> sources;  // field name -> where the figure comes from

    bool passive() const noexcept { return fan_curve.empty(); }
    friend bool operator==(const gpu_profile&, const gpu_profile&) = default;
};

// The seeded models (reference §6), in table order. Built once; safe from any thread.
const std::vector<gpu_profile>& all_profiles();
const gpu_profile* find_profile_by_key(std::string_view key);
// Matches the primary id and the aliases. NVML's pciDeviceId is (device << 16) | vendor: pass
// `pci_device_id >> 16`.
const gpu_profile* find_profile_by_pci_id(uint16_t pci_device_id);

// Every problem found, each naming the field; empty when the profile is usable.
std::vector<std::string> validate(const gpu_profile& profile);

// The JSON field names, in output order (also the keys `sources` may use).
const std::vector<std::string>& profile_field_names();

std::string to_json(const gpu_profile& profile);
// Parses a profile and validates it. Every field but `sources`, `alias_pci_device_ids` and
// `l2_cache_bytes` (newer than the others) is required; unknown keys, wrong types and out-of-range values are refused with the key named
// in `error`.
std::optional<gpu_profile> profile_from_json(std::string_view text, std::string& error);

}  // namespace cudabridge::nv

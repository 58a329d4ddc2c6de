// The catalogue of link generations. Sources (labels as in generation.hpp):
//   ref = docs/link-figures.md, section given.
#include "link/generation.hpp"

#include <array>
#include <cctype>
#include <cmath>

namespace cudabridge::usb4 {
namespace {

// USB4 lane signalling [I, ref §3.4, from the USB4 spec]: Gen2 10 Gb/s and Gen3 20 Gb/s NRZ;
// the TB3-compatible rate is 20.625 Gbaud; USB4 v2 Gen4 signals PAM3 at 25.6 Gbaud, which with
// 11 bits per 7 symbols is 40.2 Gb/s, the nominal "40 Gb/s" lane.
constexpr double kTb3Gbaud = 20.625;
constexpr double kUsb4Gen2Gbaud = 10.0;
constexpr double kUsb4Gen3Gbaud = 20.0;
constexpr double kUsb4Gen4Gbaud = 25.6;

// PCIe tunnel caps, Gb/s of TLP bytes through the tunnel.
// TB3: "~22 Gbps PCIe data on many Alpine Ridge designs" [I, ref §3.2]; hosts measure
// 2.2-2.8 GB/s H2D because of it [I, ref §3.1].
constexpr double kTb3TunnelCapGbps = 22.0;
// TB4 and USB4 v1: PCIe Gen3 x4, 32 Gbps [V2, ref §3.2: geeksynapse.com, nowhyderabad].
constexpr double kUsb4v1TunnelCapGbps = 32.0;
// TB5 / USB4 v2: PCIe Gen4 x4, 64 Gbps [V2, ref §3.2: geeksynapse.com, nowhyderabad, lifecables].
constexpr double kUsb4v2TunnelCapGbps = 64.0;

// Controller efficiency of the USB4-class routers (TB4, USB4 v1, USB4 v2 / TB5): what is left of
// the tunnel cap after adapter buffering, credit round trips and DLLPs crossing the tunnel.
// [cal] chosen so TB5 device->host lands on 5.8 GB/s (RTX 5070 Ti, Try Some Tech, ref §3.1
// [V2]); it then gives TB4 2.8 / 2.9 GB/s, inside the 2.2-3.8 GB/s of ref §3.1.
constexpr double kUsb4ControllerEfficiency = 0.787;
// TB3: the 22 Gbps cap above is already the rate Alpine Ridge hosts achieve, so no further
// controller loss is applied [I, ref §3.1-3.2]. Gives 2.45 / 2.53 GB/s, matching the "19-22 Gbps
// (~2.4-2.75 GB/s)" TB3 figure of ref §3.1 [V2, weak source].
constexpr double kTb3ControllerEfficiency = 1.0;

// Per-transfer latency [I, estimates; no measurement in ref — revise when one exists]: a direct
// PCIe DMA round trip is on the order of 1 us; each Thunderbolt tunnel adds two adapters with
// store-and-forward buffering, about 1 us (more on the older TB3 controllers).
constexpr uint64_t kDirectLatencyNs = 1000;
constexpr uint64_t kTb3LatencyNs = 2500;
constexpr uint64_t kUsb4LatencyNs = 2000;
constexpr uint64_t kUsb4v2LatencyNs = 1800;

// Enclosure PCIe links. TB3 JHL7540 upstream port trains at 8 GT/s x4 [V, ref §3.3,
// all-ways-egpu #37]; TB4/USB4 v1 tunnel PCIe Gen3 x4 [V2, ref §3.2]; a TB5 enclosure shows x4 @
// 16 GT/s [V, ref §3.2, tinygrad #15813]; OCuLink is PCIe 4.0 x4 [V2, ref §3.1].
constexpr std::array<generation_spec, 7> kGenerations{{
    {generation::tb3, "tb3", "Thunderbolt 3 (40 Gb/s)", CB_LINK_TB3, true, 2, 2, 20.0, kTb3Gbaud,
     line_encoding::nrz_64b66b, 3, 4, kTb3TunnelCapGbps, kTb3ControllerEfficiency, kTb3LatencyNs},
    {generation::tb4, "tb4", "Thunderbolt 4 (40 Gb/s)", CB_LINK_TB4, true, 2, 2, 20.0, kUsb4Gen3Gbaud,
     line_encoding::nrz_128b132b, 3, 4, kUsb4v1TunnelCapGbps, kUsb4ControllerEfficiency, kUsb4LatencyNs},
    {generation::usb4_20, "usb4-20", "USB4 20 Gb/s (Gen2 x2)", CB_LINK_USB4_V1, true, 2, 2, 10.0, kUsb4Gen2Gbaud,
     line_encoding::nrz_64b66b, 3, 4, kUsb4v1TunnelCapGbps, kUsb4ControllerEfficiency, kUsb4LatencyNs},
    {generation::usb4_40, "usb4-40", "USB4 40 Gb/s (Gen3 x2)", CB_LINK_USB4_V1, true, 2, 2, 20.0, kUsb4Gen3Gbaud,
     line_encoding::nrz_128b132b, 3, 4, kUsb4v1TunnelCapGbps, kUsb4ControllerEfficiency, kUsb4LatencyNs},
    {generation::usb4v2_80, "usb4v2-80", "USB4 v2 / Thunderbolt 5 (80 Gb/s)", CB_LINK_USB4_V2, true, 2, 2, 40.0,
     kUsb4Gen4Gbaud, line_encoding::pam3_11b7t, 4, 4, kUsb4v2TunnelCapGbps, kUsb4ControllerEfficiency,
     kUsb4v2LatencyNs},
    // Bandwidth Boost: 120 Gb/s one way, 40 Gb/s the other [V2, ref §3.2]. The wide direction is
    // host->device, the way a boosted display stream flows.
    {generation::usb4v2_120, "usb4v2-120", "USB4 v2 / Thunderbolt 5 Bandwidth Boost (120/40 Gb/s)", CB_LINK_USB4_V2,
     true, 3, 1, 40.0, kUsb4Gen4Gbaud, line_encoding::pam3_11b7t, 4, 4, kUsb4v2TunnelCapGbps, kUsb4ControllerEfficiency,
     kUsb4v2LatencyNs},
    // For OCuLink the "lanes" are the PCIe lanes and the lane speed is in GT/s.
    {generation::oculink, "oculink", "OCuLink (PCIe 4.0 x4, no tunnel)", CB_LINK_OCULINK, false, 4, 4, 16.0, 16.0,
     line_encoding::pcie_128b130b, 4, 4, 0.0, 1.0, kDirectLatencyNs},
}};

bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    }
    return true;
}

}  // namespace

std::span<const generation_spec> all_generations() noexcept { return kGenerations; }

const generation_spec& spec_of(generation gen) noexcept { return kGenerations[static_cast<size_t>(gen)]; }

std::optional<generation> parse_generation(std::string_view text) noexcept {
    if (iequals(text, "tb5")) return generation::usb4v2_80;  // TB5 is certified USB4 v2 80G
    for (const auto& s : kGenerations) {
        if (iequals(text, s.key)) return s.gen;
    }
    return std::nullopt;
}

const char* generation_key(generation gen) noexcept { return spec_of(gen).key; }

const char* encoding_name(line_encoding e) noexcept {
    switch (e) {
    case line_encoding::nrz_64b66b:
        return "64b/66b";
    case line_encoding::nrz_128b132b:
        return "128b/132b";
    case line_encoding::pam3_11b7t:
        return "PAM3 11b/7T";
    case line_encoding::pcie_128b130b:
        return "128b/130b";
    }
    return "?";
}

double data_bits_per_symbol(line_encoding e) noexcept {
    // 64b/66b and 128b/132b [I, ref §3.4, USB4 spec]; PAM3 carries 11 bits in 7 trits
    // [I, ref §3.4, USB4 v2 spec]; PCIe Gen3+ 128b/130b [PCIe 3.0 spec].
    switch (e) {
    case line_encoding::nrz_64b66b:
        return 64.0 / 66.0;
    case line_encoding::nrz_128b132b:
        return 128.0 / 132.0;
    case line_encoding::pam3_11b7t:
        return 11.0 / 7.0;
    case line_encoding::pcie_128b130b:
        return 128.0 / 130.0;
    }
    return 0.0;
}

double pcie_gts(uint32_t pcie_gen) noexcept {
    // PCIe base specifications 1.0-5.0: 2.5, 5, 8, 16, 32 GT/s per lane.
    switch (pcie_gen) {
    case 1:
        return 2.5;
    case 2:
        return 5.0;
    case 3:
        return 8.0;
    case 4:
        return 16.0;
    case 5:
        return 32.0;
    default:
        return 0.0;
    }
}

double pcie_lane_data_gbps(uint32_t pcie_gen) noexcept {
    // Gen1/2 use 8b/10b, Gen3 and later 128b/130b (PCIe base specifications).
    const double gts = pcie_gts(pcie_gen);
    return pcie_gen <= 2 ? gts * 8.0 / 10.0 : gts * 128.0 / 130.0;
}

}  // namespace cudabridge::usb4

// The link generations the model knows, and the fixed facts of each: lanes, line rate and
// encoding, the PCIe link inside the enclosure, the PCIe tunnel cap, the controller efficiency
// and the per-transfer latency. Every figure cites its source in generation.cpp.
//
// Source labels follow docs/link-figures.md: [V] read in the source named,
// [V2] read in a secondary summary, [I] background knowledge not checked against a source,
// [cal] calibrated here so the model lands on a measurement.
#pragma once

#include <cudabridge/transport.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace cudabridge::usb4 {

enum class generation {
    tb3,         // Thunderbolt 3 (Alpine / Titan Ridge), 2 x 20 Gb/s
    tb4,         // Thunderbolt 4 = certified USB4 40 Gb/s
    usb4_20,     // USB4 v1 Gen2 x2
    usb4_40,     // USB4 v1 Gen3 x2
    usb4v2_80,   // USB4 v2 Gen4 x2 symmetric; Thunderbolt 5
    usb4v2_120,  // USB4 v2 asymmetric (TB5 Bandwidth Boost): 3 lanes host->device, 1 back
    oculink,     // PCIe 4.0 x4 on a cable, no tunnel: the non-tunnel reference
};

// How a lane turns symbols into bits.
enum class line_encoding {
    nrz_64b66b,     // TB3 legacy and USB4 Gen2
    nrz_128b132b,   // USB4 Gen3
    pam3_11b7t,     // USB4 v2 Gen4: 11 bits in 7 ternary symbols
    pcie_128b130b,  // PCIe Gen3 and later (OCuLink; the enclosure side of every tunnel)
};

struct generation_spec {
    generation gen;
    const char* key;   // what parse_generation accepts; stable, used in settings and the CLI
    const char* name;  // for people
    cb_link_generation abi_generation;
    bool tunnelled;  // false: a direct PCIe cable

    // The USB4 link (for OCuLink: the PCIe lanes). Per direction, as seen from the host.
    uint32_t lanes_h2d;
    uint32_t lanes_d2h;
    double lane_speed_gbps;    // nominal per-lane speed, as sysfs rx_speed/tx_speed report it
    double symbol_rate_gbaud;  // what the lane really signals at
    line_encoding encoding;

    // The PCIe link between the enclosure's controller and the GPU (for OCuLink: the link).
    uint32_t pcie_gen;
    uint32_t pcie_width;

    // The most the PCIe tunnel carries, in Gb/s of TLP bytes (0 when not tunnelled).
    double tunnel_cap_gbps;
    // Share of the tunnel's rate the controllers deliver end to end (1 when not tunnelled).
    double controller_efficiency;
    // Fixed cost of one transfer: DMA setup, doorbell, first-byte round trip.
    uint64_t latency_ns;
};

// Every generation, in enum order.
std::span<const generation_spec> all_generations() noexcept;
const generation_spec& spec_of(generation gen) noexcept;

// Accepts "tb3", "tb4", "usb4-20", "usb4-40", "usb4v2-80", "tb5" (= usb4v2-80), "usb4v2-120"
// and "oculink", ignoring ASCII case. Anything else: nullopt.
std::optional<generation> parse_generation(std::string_view text) noexcept;
// The canonical key (the one parse_generation round-trips); "tb5" parses to usb4v2-80.
const char* generation_key(generation gen) noexcept;

// Encoding facts, from the specifications.
const char* encoding_name(line_encoding e) noexcept;
double data_bits_per_symbol(line_encoding e) noexcept;
// PCIe transfer rate per lane (GT/s) of a generation 1..6; 0 for anything else.
double pcie_gts(uint32_t pcie_gen) noexcept;
// PCIe per-lane data rate after line encoding (Gb/s): Gen1/2 8b/10b, Gen3+ 128b/130b.
double pcie_lane_data_gbps(uint32_t pcie_gen) noexcept;

}  // namespace cudabridge::usb4

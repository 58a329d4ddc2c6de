// The link bandwidth model (formula in link_model.hpp). ref = docs/link-figures.md.
#include "link/link_model.hpp"

#include <cudabridge/cpp/host.hpp>

#include <algorithm>
#include <cmath>

namespace cudabridge::usb4 {
namespace {

// Share of a PCIe link's TLP rate left after ACK/NAK and UpdateFC DLLPs, SKP ordered sets and
// host-side gaps. [cal] with kReadTurnaroundBytes, so OCuLink (PCIe 4.0 x4, no tunnel) gives
// 6.54 / 6.77 GB/s against the measured 6.6 / 6.7 (RTX 5070 Ti, ref §3.1 [V2]).
constexpr double kPcieLinkEfficiency = 0.947;
// Per Memory Read Request the completer leaves the link idle about as long as 26 bytes take:
// request turnaround and completion ordering. [cal] so TB5 host->device lands on 5.6 GB/s when
// device->host is 5.8 (ref §3.1 [V2]).
constexpr double kReadTurnaroundBytes = 26.0;

// Max Payload Size values eGPU links negotiate [I, ref §3.4: 128 or 256 B]; 512 is the next
// encoding of the Device Control field and what some root ports allow.
constexpr uint32_t kMpsChoices[] = {128, 256, 512};
// Max Read Request Size: 128..4096 in powers of two (Device Control encodings 0-5, PCIe spec).
constexpr uint32_t kMinMrrs = 128;
constexpr uint32_t kMaxMrrs = 4096;

bool is_power_of_two(uint32_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

bool known_generation(generation gen) noexcept {
    const auto i = static_cast<size_t>(gen);
    return i < all_generations().size();
}

uint32_t nominal_lanes(const generation_spec& s) noexcept { return std::max(s.lanes_h2d, s.lanes_d2h); }

// One direction. `lanes` already capped by the link's lanes that way.
direction_figures direction(const generation_spec& s, uint32_t lanes, uint32_t pcie_width, const tlp_shape& tlp,
                            double read_efficiency) {
    direction_figures d;
    d.lanes = lanes;
    d.tlp = tlp;
    d.read_efficiency = read_efficiency;

    const double pcie_gbps =
        pcie_width * pcie_lane_data_gbps(s.pcie_gen) * tlp.payload / tlp.link_bytes * kPcieLinkEfficiency;
    double gbps = pcie_gbps;
    d.limit = bottleneck::pcie_link;
    if (s.tunnelled) {
        d.line_gbps = lanes * s.symbol_rate_gbaud * data_bits_per_symbol(s.encoding);
        // TLP bytes per second the tunnel moves: the lanes less tunnel headers, or the cap.
        const double line_tlp_gbps = d.line_gbps * tlp.tunnel_bytes / static_cast<double>(tlp.tunnel_wire_bytes);
        const bool cap_binds = s.tunnel_cap_gbps < line_tlp_gbps;
        const double tunnel_gbps =
            (cap_binds ? s.tunnel_cap_gbps : line_tlp_gbps) * tlp.payload / tlp.tunnel_bytes * s.controller_efficiency;
        if (tunnel_gbps < gbps) {
            gbps = tunnel_gbps;
            d.limit = cap_binds ? bottleneck::tunnel_cap : bottleneck::usb4_lanes;
        }
    } else {
        d.line_gbps = pcie_width * pcie_lane_data_gbps(s.pcie_gen);
    }
    d.gbs = gbps * read_efficiency / 8.0;
    return d;
}

}  // namespace

const char* bottleneck_name(bottleneck b) noexcept {
    switch (b) {
    case bottleneck::usb4_lanes:
        return "usb4 lanes";
    case bottleneck::tunnel_cap:
        return "pcie tunnel cap";
    case bottleneck::pcie_link:
        return "pcie link";
    }
    return "?";
}

std::string check_link_params(const link_params& p) {
    if (!known_generation(p.gen)) return "unknown link generation";
    if (std::find(std::begin(kMpsChoices), std::end(kMpsChoices), p.max_payload) == std::end(kMpsChoices))
        return "max payload size " + std::to_string(p.max_payload) + " is not one of 128, 256, 512 bytes";
    if (!is_power_of_two(p.max_read_request) || p.max_read_request < kMinMrrs || p.max_read_request > kMaxMrrs)
        return "max read request size " + std::to_string(p.max_read_request) +
               " is not a power of two from 128 to 4096 bytes";
    const generation_spec& s = spec_of(p.gen);
    if (p.lanes > nominal_lanes(s))
        return std::string(s.key) + " has " + std::to_string(nominal_lanes(s)) + " lanes, not " +
               std::to_string(p.lanes);
    if (!s.tunnelled && p.lanes != 0 && !is_power_of_two(p.lanes))
        return "a PCIe link is x1, x2 or x4, not x" + std::to_string(p.lanes);
    return {};
}

link_figures compute_link(const link_params& p) {
    if (std::string why = check_link_params(p); !why.empty())
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "link model: " + why);

    const generation_spec& s = spec_of(p.gen);
    link_figures f;
    f.gen = s.gen;
    f.key = s.key;
    f.name = s.name;
    f.abi_generation = s.abi_generation;
    f.tunnelled = s.tunnelled;
    f.lane_speed_gbps = s.lane_speed_gbps;
    f.encoding = encoding_name(s.encoding);
    f.pcie_gen = s.pcie_gen;
    f.pcie_width = s.pcie_width;
    f.tunnel_cap_gbps = s.tunnel_cap_gbps;
    f.controller_efficiency = s.controller_efficiency;
    f.max_payload = p.max_payload;
    f.max_read_request = p.max_read_request;
    f.latency_ns = s.latency_ns;

    // A lane override degrades the USB4 link; on OCuLink it narrows the PCIe link itself.
    const uint32_t want = p.lanes == 0 ? nominal_lanes(s) : p.lanes;
    const uint32_t lanes_h2d = std::min(want, s.lanes_h2d);
    const uint32_t lanes_d2h = std::min(want, s.lanes_d2h);
    if (!s.tunnelled) f.pcie_width = want;
    f.lanes = std::max(lanes_h2d, lanes_d2h);

    const double read_eff = p.max_read_request / (p.max_read_request + kReadTurnaroundBytes);
    f.h2d = direction(s, lanes_h2d, f.pcie_width, read_completion_tlp(p.max_payload, p.max_read_request, s.pcie_gen),
                      read_eff);
    f.d2h = direction(s, lanes_d2h, f.pcie_width, posted_write_tlp(p.max_payload, s.pcie_gen), 1.0);
    f.h2d_gbs = f.h2d.gbs;
    f.d2h_gbs = f.d2h.gbs;
    return f;
}

uint64_t transfer_time_ns(const link_figures& link, uint64_t bytes, bool to_device) noexcept {
    const double gbs = to_device ? link.h2d_gbs : link.d2h_gbs;  // GB/s == bytes per ns
    if (bytes == 0 || gbs <= 0) return link.latency_ns;
    return link.latency_ns + static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / gbs));
}

}  // namespace cudabridge::usb4

// The link bandwidth model: what payload bandwidth and latency a generation's PCIe tunnel gives
// a GPU's DMA, per direction, for the negotiated Max Payload Size and Max Read Request.
//
// Which TLPs carry the data: a GPU's copy engines move data themselves.
//   host -> device (H2D): the GPU *pulls* host memory with Memory Read Requests; the data comes
//     back as Completions with Data, each at most min(MPS, MRRS). Reads also pay a turnaround per
//     request, so larger MRRS helps.
//   device -> host (D2H): the GPU *pushes* with posted Memory Writes of MPS bytes.
// That is why TB5 measures 5.6 GB/s H2D but 5.8 GB/s D2H (ref = docs/link-figures.md, the public
// measurements the model is calibrated to, with their sources).
//
// Per direction:
//   usb4 line  = lanes x symbol rate x data bits per symbol          (tunnelled only)
//   tunnel     = min(line x TLP/(TLP + tunnel headers), tunnel cap) x payload/TLP x controller eff
//   pcie link  = width x lane data rate x payload/(TLP + framing) x PCIe link efficiency
//   bandwidth  = min(tunnel, pcie link) x (H2D: MRRS / (MRRS + read turnaround))
// Constants and their sources: generation.cpp, tlp_framing.cpp, link_model.cpp.
//
// Invalid parameters throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, why) — the SDK's
// exception firewall turns it into that status at the ABI — and check_link_params says the same
// without throwing.
#pragma once

#include "link/generation.hpp"
#include "link/tlp_framing.hpp"

#include <cudabridge/transport.h>

#include <cstdint>
#include <string>

namespace cudabridge::usb4 {

struct link_params {
    generation gen = generation::tb4;
    uint32_t max_payload = 256;       // MPS: 128, 256 or 512 (what eGPU links negotiate)
    uint32_t max_read_request = 512;  // MRRS: a power of two, 128..4096
    uint32_t lanes = 0;               // 0: the generation's own; 1..that: a degraded link
};

// What bounds a direction's bandwidth.
enum class bottleneck { usb4_lanes, tunnel_cap, pcie_link };
const char* bottleneck_name(bottleneck b) noexcept;

struct direction_figures {
    double gbs = 0;              // usable payload bandwidth, GB/s (10^9 bytes per second)
    uint32_t lanes = 0;          // USB4 lanes this way (OCuLink: PCIe lanes)
    double line_gbps = 0;        // lanes x symbol rate x data bits per symbol
    tlp_shape tlp;               // the TLP that carries the data this way
    double read_efficiency = 1;  // MRRS turnaround share (H2D); 1 for posted writes
    bottleneck limit = bottleneck::pcie_link;
};

struct link_figures {
    generation gen = generation::tb4;
    const char* key = "";
    const char* name = "";
    cb_link_generation abi_generation = CB_LINK_UNKNOWN;
    bool tunnelled = true;
    uint32_t lanes = 0;          // the wider direction's lanes
    double lane_speed_gbps = 0;  // nominal per lane (OCuLink: GT/s per PCIe lane)
    const char* encoding = "";
    uint32_t pcie_gen = 0;  // the enclosure's PCIe link (OCuLink: the link)
    uint32_t pcie_width = 0;
    double tunnel_cap_gbps = 0;  // 0 when not tunnelled
    double controller_efficiency = 1;
    uint32_t max_payload = 0;
    uint32_t max_read_request = 0;
    double h2d_gbs = 0;       // = h2d.gbs
    double d2h_gbs = 0;       // = d2h.gbs
    uint64_t latency_ns = 0;  // fixed cost of one transfer
    direction_figures h2d;
    direction_figures d2h;
};

// "" when the parameters are valid, else what is wrong and what is accepted.
std::string check_link_params(const link_params& params);
// Throws sdk::status_error(CB_ERR_INVALID_ARGUMENT) when check_link_params finds a problem.
link_figures compute_link(const link_params& params);

// Modeled time to move `bytes` one way: latency + bytes / bandwidth, rounded up to whole ns.
// Zero bytes still costs the latency (the transfer is issued and completes).
uint64_t transfer_time_ns(const link_figures& link, uint64_t bytes, bool to_device) noexcept;

}  // namespace cudabridge::usb4

// TLP and tunnel framing. ref = docs/link-figures.md; labels as in generation.hpp.
#include "link/tlp_framing.hpp"

#include <algorithm>

namespace cudabridge::usb4 {
namespace {

// TLP headers [PCIe base spec; ref §3.4 "3-4 DW header"]: a Memory Write with a 64-bit address
// is 4 DW; a Completion with Data is 3 DW. The GPU's DMA addresses (IOVAs) may lie above 4 GiB,
// so writes take the 64-bit form.
constexpr uint32_t kMemWrite64HeaderBytes = 16;
constexpr uint32_t kCompletionHeaderBytes = 12;
// Data link layer: 2-byte sequence number before, 4-byte LCRC after [PCIe base spec; ref §3.4
// "seq/LCRC"]. The tunnel carries them with the TLP [I].
constexpr uint32_t kSeqLcrcBytes = 6;
// Physical framing on a PCIe link: Gen3+ a 4-byte STP token; Gen1/2 one STP and one END symbol
// [PCIe base spec; ref §3.4 "framing"]. Inside the tunnel the tunnel header replaces it [I].
constexpr uint32_t kFramingGen3Bytes = 4;
constexpr uint32_t kFramingGen1Bytes = 2;

tlp_shape shape(uint32_t payload, uint32_t header, uint32_t pcie_gen) {
    tlp_shape s;
    s.payload = payload;
    s.header = header;
    s.tunnel_bytes = header + payload + kSeqLcrcBytes;
    s.link_bytes = s.tunnel_bytes + (pcie_gen >= 3 ? kFramingGen3Bytes : kFramingGen1Bytes);
    s.tunnel_packets = tunnel_packets_for(s.tunnel_bytes);
    s.tunnel_wire_bytes = s.tunnel_bytes + s.tunnel_packets * kTunnelPacketHeaderBytes;
    return s;
}

}  // namespace

uint32_t tunnel_packets_for(uint32_t bytes) noexcept {
    return (bytes + kMaxTunnelPayloadBytes - 1) / kMaxTunnelPayloadBytes;
}

tlp_shape posted_write_tlp(uint32_t max_payload, uint32_t pcie_gen) {
    return shape(max_payload, kMemWrite64HeaderBytes, pcie_gen);
}

tlp_shape read_completion_tlp(uint32_t max_payload, uint32_t max_read_request, uint32_t pcie_gen) {
    // A completer may split at the Read Completion Boundary (64 or 128 B); we assume it returns
    // MPS-sized completions. 64-byte completions would put H2D ~20% under D2H, far from the
    // measured 5.6 vs 5.8 GB/s of TB5 (ref §3.1) [cal].
    return shape(std::min(max_payload, max_read_request), kCompletionHeaderBytes, pcie_gen);
}

}  // namespace cudabridge::usb4

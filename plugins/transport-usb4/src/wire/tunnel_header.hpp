// The USB4 tunneled-packet header, as the simulated link carries it.
//
// Sizes are USB4's (docs/link-figures.md §3.4): a 4-byte header (HopID, Length,
// Protocol-Defined Field, Header Error Control) and a payload of at most 256 bytes. The bit layout
// below is this simulator's own: the spec text is not at hand, and nothing outside the wire reads
// the header. In place of the PDF/HEC bits it carries a per-direction sequence tag, so consecutive
// packets with equal payloads still get different CRCs; the packet CRC-32C covers the header, so a
// separate header check (HEC) would add nothing here.
#pragma once

#include <cstdint>

namespace cudabridge::usb4 {

// USB4 transport layer: tunneled packet header and largest payload (docs/link-figures.md §3.4; the
// kernel's tb_regs.h also caps frames at 256 bytes). The link model's framing uses these too.
inline constexpr uint32_t kTunnelPacketHeaderBytes = 4;
inline constexpr uint32_t kMaxTunnelPayloadBytes = 256;

// "PCIe adapters use always HopID of 8 for both directions" (drivers/thunderbolt/tunnel.c,
// TB_PCI_HOPID).
inline constexpr uint32_t kPcieHopId = 8;

// Layout: bits 0-10 HopID, bits 11-18 payload length - 1 (1..256), bits 19-31 sequence tag.
constexpr uint32_t make_tunnel_header(uint32_t hop_id, uint32_t payload_len, uint32_t sequence) noexcept {
    return (hop_id & 0x7ffu) | (((payload_len - 1) & 0xffu) << 11) | ((sequence & 0x1fffu) << 19);
}
constexpr uint32_t tunnel_header_hop_id(uint32_t h) noexcept { return h & 0x7ffu; }
constexpr uint32_t tunnel_header_payload_len(uint32_t h) noexcept { return ((h >> 11) & 0xffu) + 1; }
constexpr uint32_t tunnel_header_sequence(uint32_t h) noexcept { return h >> 19; }

}  // namespace cudabridge::usb4

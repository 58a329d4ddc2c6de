// How many bytes the link really carries for each byte of DMA data: one PCIe TLP's header and
// link-layer trailer, and how the USB4 tunnel cuts that TLP into tunneled packets, each with its
// own header. Sources in tlp_framing.cpp.
#pragma once

#include "wire/tunnel_header.hpp"  // the tunneled packet's sizes: one place for that USB4 fact

#include <cstdint>

namespace cudabridge::usb4 {

// One TLP of a DMA stream, in bytes.
struct tlp_shape {
    uint32_t payload = 0;            // data carried
    uint32_t header = 0;             // TLP header
    uint32_t tunnel_bytes = 0;       // what the tunnel carries: header + payload + seq + LCRC
    uint32_t link_bytes = 0;         // on a PCIe link: tunnel_bytes + the framing token
    uint32_t tunnel_packets = 0;     // tunneled packets the TLP needs
    uint32_t tunnel_wire_bytes = 0;  // tunnel_bytes + their headers
};

// Device -> host data: the GPU pushes with posted Memory Writes (64-bit address, 4-DW header) of
// up to Max Payload Size bytes.
tlp_shape posted_write_tlp(uint32_t max_payload, uint32_t pcie_gen);
// Host -> device data: the GPU pulls with Memory Read Requests of up to Max Read Request bytes;
// the host answers with Completions with Data (3-DW header), each at most Max Payload Size.
tlp_shape read_completion_tlp(uint32_t max_payload, uint32_t max_read_request, uint32_t pcie_gen);

// Tunneled packets needed for `bytes` of TLP (ceil(bytes / 256)).
uint32_t tunnel_packets_for(uint32_t bytes) noexcept;

}  // namespace cudabridge::usb4

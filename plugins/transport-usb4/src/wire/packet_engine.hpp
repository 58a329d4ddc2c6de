// The data path: bytes cross the link as tunneled packets, each checked by CRC-32C and replayed
// when the check fails.
//
// Per packet: the sender computes CRC-32C over header + payload from its own bytes; the packet
// crosses (a copy straight into the destination, which is where in-flight corruption lands, so
// there is no bounce buffer); the receiver recomputes the CRC over what arrived; on a mismatch the
// packet is counted as a CRC error and replayed from the sender's bytes, up to the retry limit.
//
// Why blocks: the loop copies 8 packets at a time (2 KiB at the default payload), then runs the
// 8 sender CRCs and the 8 receiver CRCs over cache-hot bytes while the next block is prefetched;
// memory is touched about as often as by a plain memcpy, and independent CRC calls overlap.
// Replays are selective (only the failed packet is sent again), and a block's packets all cross
// before any of them is replayed.
#pragma once

#include "wire/bit_error_injector.hpp"

#include <cstddef>
#include <cstdint>

namespace cudabridge::usb4 {

struct packet_engine_config {
    uint32_t payload_bytes;  // 1..kMaxTunnelPayloadBytes
    uint32_t retry_limit;    // replays allowed per packet before the run fails
    uint32_t hop_id;
};

// What one run did. packets and payload_bytes count only packets that arrived intact.
struct packet_run {
    uint64_t packets = 0;
    uint64_t payload_bytes = 0;
    uint64_t wire_bytes = 0;         // every packet sent, replays included, headers included
    uint64_t crc_errors = 0;         // receiver checks that failed
    uint64_t replays = 0;            // packets sent again
    uint64_t corrupted_packets = 0;  // sends the injector corrupted (ground truth)
    uint64_t undetected = 0;         // corrupted sends whose CRC still matched (ground truth)
    bool integrity_failed = false;   // a packet ran out of replays; the run stopped there
};

// Moves `size` bytes from src to dst (which must not overlap) as packets, advancing the
// direction's sequence tag. Stops at the first packet that exhausts its replays.
void move_packets(const packet_engine_config& config, const unsigned char* src, unsigned char* dst, size_t size,
                  uint32_t& sequence, bit_error_injector& injector, packet_run& run) noexcept;

}  // namespace cudabridge::usb4

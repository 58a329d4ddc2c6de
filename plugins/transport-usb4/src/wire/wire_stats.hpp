// The wire's counters, as one snapshot (the statistics the qemu-vfio-apple dext keeps for the
// link, plus the injector's ground truth).
#pragma once

#include <cstdint>

namespace cudabridge::usb4 {

struct wire_stats {
    uint64_t transfers = 0;         // transfer() calls, failed ones included
    uint64_t failed_transfers = 0;  // any status other than CB_OK
    uint64_t bytes_to_device = 0;   // payload bytes of packets that arrived intact
    uint64_t bytes_from_device = 0;
    uint64_t packets_to_device = 0;  // packets that arrived intact (replays not counted again)
    uint64_t packets_from_device = 0;
    uint64_t wire_bytes = 0;           // everything sent: headers, payloads and replays
    uint64_t crc_errors = 0;           // receiver checks that failed
    uint64_t replays = 0;              // packets sent again after a failed check
    uint64_t injected_bit_errors = 0;  // bits the injector flipped (ground truth)
    uint64_t corrupted_packets = 0;    // packet sends it corrupted (ground truth)
    uint64_t undetected_errors = 0;    // corrupted sends the CRC passed (ground truth; 0 expected)
    uint64_t modeled_ns = 0;           // link time charged by transfers, summed
    uint64_t clock_ns = 0;             // the wire's modeled clock: modeled_ns plus idle time
};

}  // namespace cudabridge::usb4

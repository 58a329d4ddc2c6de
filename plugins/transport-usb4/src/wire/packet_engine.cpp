#include "wire/packet_engine.hpp"

#include "wire/crc32c.hpp"
#include "wire/crc32c_isal.hpp"
#include "wire/tunnel_header.hpp"

#include <algorithm>
#include <cstring>

namespace cudabridge::usb4 {
namespace {

// Packets per block: 8 x 256 B = 2 KiB, so a block's source and destination sit in L1 together
// while both CRC passes read them. Measured on the build host (bench_usb4_wire): 8 and 16 within
// noise of each other, 32 clearly slower.
constexpr size_t kBlockPackets = 8;
constexpr size_t kCacheLine = 64;

inline uint32_t packet_crc(uint32_t header, const unsigned char* payload, uint32_t len) noexcept {
    // CRC-32C over header ++ payload: the 4 header bytes by table, the payload by ISA-L.
    return ~detail::isal_crc32c_raw(crc32c_raw_u32le(kCrc32cRawInit, header), payload, static_cast<int>(len));
}

// The slow path, taken only when a packet arrived corrupted (or failed its check): replay it
// from the sender's bytes until it checks out or the retry limit runs out.
[[gnu::noinline]] bool settle_packet(const packet_engine_config& config, uint32_t header, uint32_t sent_crc,
                                     const unsigned char* src, unsigned char* dst, uint32_t len, uint32_t flips,
                                     uint32_t received_crc, bit_error_injector& injector, packet_run& run) noexcept {
    for (uint32_t replays = 0;; ++replays) {
        if (flips != 0) ++run.corrupted_packets;
        if (received_crc == sent_crc) {
            if (flips != 0) ++run.undetected;  // CRC-32C missed it: counted, never hidden
            return true;
        }
        ++run.crc_errors;
        if (replays == config.retry_limit) return false;
        ++run.replays;
        run.wire_bytes += kTunnelPacketHeaderBytes + len;
        std::memcpy(dst, src, len);
        uint32_t rx_header = header;
        flips = injector.expose(rx_header, dst, len);
        received_crc = packet_crc(rx_header, dst, len);
    }
}

}  // namespace

void move_packets(const packet_engine_config& config, const unsigned char* src, unsigned char* dst, size_t size,
                  uint32_t& sequence, bit_error_injector& injector, packet_run& run) noexcept {
    const size_t payload = config.payload_bytes;
    const size_t block_bytes = payload * kBlockPackets;
    uint32_t seq = sequence;
    uint64_t packets = 0;
    size_t done = 0;  // bytes of fully delivered packets
    uint32_t headers[kBlockPackets];
    uint32_t sent_crc[kBlockPackets];
    uint32_t flips[kBlockPackets];
    uint32_t received_crc[kBlockPackets];
    while (done < size) {
        const size_t block_end = done + std::min(size - done, block_bytes);
        const size_t count = (block_end - done + payload - 1) / payload;
        auto len_of = [&](size_t i) {
            return static_cast<uint32_t>(std::min(payload, block_end - done - i * payload));
        };
        // Ask for the next block now, so memory works while this block's CRCs compute (the
        // CRCs, not the copy, bound the loop: without this the two take turns).
        if (block_end < size) {
            const size_t next = std::min(size - block_end, block_bytes);
            for (size_t off = 0; off < next; off += kCacheLine) {
                __builtin_prefetch(src + block_end + off, 0, 3);
                __builtin_prefetch(dst + block_end + off, 1, 3);
            }
        }
        std::memcpy(dst + done, src + done, block_end - done);  // the block's first transmission
        // Sender: one CRC per packet over its own bytes. Independent calls, so they overlap.
        for (size_t i = 0; i < count; ++i) {
            headers[i] = make_tunnel_header(config.hop_id, len_of(i), seq + static_cast<uint32_t>(i));
            sent_crc[i] = packet_crc(headers[i], src + done + i * payload, len_of(i));
        }
        // In flight, then the receiver's check over what arrived.
        for (size_t i = 0; i < count; ++i) {
            uint32_t rx_header = headers[i];
            flips[i] = injector.expose(rx_header, dst + done + i * payload, len_of(i));
            received_crc[i] = packet_crc(rx_header, dst + done + i * payload, len_of(i));
        }
        for (size_t i = 0; i < count; ++i) {
            if (flips[i] != 0 || received_crc[i] != sent_crc[i]) [[unlikely]] {
                const size_t at = done + i * payload;
                if (!settle_packet(config, headers[i], sent_crc[i], src + at, dst + at, len_of(i), flips[i],
                                   received_crc[i], injector, run)) {
                    run.integrity_failed = true;
                    run.wire_bytes += (packets + i + 1) * kTunnelPacketHeaderBytes + (at + len_of(i));
                    run.packets += packets + i;
                    run.payload_bytes += at;
                    sequence = seq + static_cast<uint32_t>(i + 1);
                    return;
                }
            }
        }
        packets += count;
        seq += static_cast<uint32_t>(count);
        done = block_end;
    }
    run.wire_bytes += packets * kTunnelPacketHeaderBytes + size;
    run.packets += packets;
    run.payload_bytes += size;
    sequence = seq;
}

}  // namespace cudabridge::usb4

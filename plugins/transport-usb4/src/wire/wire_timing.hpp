// How long the modeled link takes to carry a run of packets.
#pragma once

#include <cstdint>

namespace cudabridge::usb4 {

// Direction as seen from the device, like CB_DMA_TO_DEVICE / CB_DMA_FROM_DEVICE.
enum class direction : uint8_t { to_device = 0, from_device = 1 };

// Filled by the fabric from the link model. Rates are tunneled-packet bytes (4-byte header plus
// payload) per nanosecond, i.e. GB/s; the wire adds the headers itself, so the model hands over
// the rate before the tunnel-header factor. latency_ns is charged once per transfer and once per
// replay (the NAK's trip back to the sender).
struct wire_timing {
    double to_device_bytes_per_ns = 0.0;
    double from_device_bytes_per_ns = 0.0;
    uint64_t latency_ns = 0;
};

constexpr double wire_rate(const wire_timing& t, direction d) noexcept {
    return d == direction::to_device ? t.to_device_bytes_per_ns : t.from_device_bytes_per_ns;
}

// latency + ceil(wire_bytes / rate) + replays * latency. wire_bytes counts every packet sent,
// replays included, headers included.
uint64_t modeled_transfer_ns(const wire_timing& t, direction d, uint64_t wire_bytes, uint64_t replays) noexcept;

// True when both rates are positive and finite.
bool wire_timing_valid(const wire_timing& t) noexcept;

}  // namespace cudabridge::usb4

// Shared helpers for the wire tests: random buffers and a wire with round-number timing.
#pragma once

#include "wire/wire.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudabridge::usb4::test {

// Deterministic pseudo-random bytes.
std::vector<unsigned char> random_bytes(size_t size, uint64_t seed);

// 2 bytes/ns to the device, 4 from it, 1 us latency: numbers easy to check by hand.
wire_config test_config(uint32_t payload_bytes = kMaxTunnelPayloadBytes, uint64_t seed = 1);

inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace cudabridge::usb4::test

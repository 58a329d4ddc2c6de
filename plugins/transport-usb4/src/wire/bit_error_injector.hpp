// Bit errors on the bits in flight, at a per-bit rate, deterministic from a seed.
//
// Why a gap instead of a coin per bit: at a realistic rate (1e-12) a per-bit draw would cost more
// than the copy. Independent errors at rate p leave geometric gaps between them, so the injector
// draws the number of clean bits before the next error once, and a packet with no error in it
// costs one compare and one subtract.
#pragma once

#include "wire/xoshiro256.hpp"

#include <cstdint>
#include <limits>

namespace cudabridge::usb4 {

class bit_error_injector {
public:
    explicit bit_error_injector(uint64_t seed = 0) noexcept : rng_(seed) {}

    // Restarts the random stream; the next gap is drawn from the new seed.
    void reseed(uint64_t seed) noexcept;

    // Errors per bit in [0, 1]; 0 turns injection off. Returns false (and changes nothing) for a
    // rate outside that range or not a number.
    bool set_rate(double per_bit) noexcept;
    double rate() const noexcept { return rate_; }

    // One packet crosses: its 32 header bits (the value's bits 0..31, the header's little-endian
    // bytes in order) and then payload_len bytes (LSB first in each byte). Flips the bits the
    // link corrupts, in the receiver's copies, and returns how many it flipped.
    uint32_t expose(uint32_t& header, unsigned char* payload, uint32_t payload_len) noexcept {
        const uint64_t bits = 32 + uint64_t{8} * payload_len;
        if (gap_ >= bits) [[likely]] {
            gap_ -= bits;
            return 0;
        }
        return flip(header, payload, bits);
    }

    // Bits flipped so far (the injector's own count, for tests to compare with what was caught).
    uint64_t bits_flipped() const noexcept { return bits_flipped_; }

private:
    static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
    // Caps a drawn gap well below kNever so `gap_ - bits` never wraps.
    static constexpr uint64_t kMaxGap = uint64_t{1} << 62;

    uint32_t flip(uint32_t& header, unsigned char* payload, uint64_t bits) noexcept;
    uint64_t draw_gap() noexcept;

    xoshiro256ss rng_;
    double rate_ = 0.0;
    double log_keep_ = 0.0;  // log(1 - rate), the geometric distribution's parameter
    uint64_t gap_ = kNever;  // clean bits before the next error
    uint64_t bits_flipped_ = 0;
};

}  // namespace cudabridge::usb4

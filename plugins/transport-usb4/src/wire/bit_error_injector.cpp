#include "wire/bit_error_injector.hpp"

#include <cmath>

namespace cudabridge::usb4 {

void bit_error_injector::reseed(uint64_t seed) noexcept {
    rng_.reseed(seed);
    gap_ = draw_gap();
}

bool bit_error_injector::set_rate(double per_bit) noexcept {
    if (!(per_bit >= 0.0 && per_bit <= 1.0)) return false;  // also refuses NaN
    rate_ = per_bit;
    log_keep_ = std::log1p(-per_bit);
    gap_ = draw_gap();
    return true;
}

uint64_t bit_error_injector::draw_gap() noexcept {
    if (rate_ <= 0.0) return kNever;
    if (rate_ >= 1.0) return 0;
    // Inverse CDF of the geometric distribution (failures before the first success):
    // floor(log(U) / log(1 - p)), U uniform in (0, 1].
    const double g = std::floor(std::log(rng_.uniform_open0()) / log_keep_);
    return g >= static_cast<double>(kMaxGap) ? kMaxGap : static_cast<uint64_t>(g);
}

uint32_t bit_error_injector::flip(uint32_t& header, unsigned char* payload, uint64_t bits) noexcept {
    if (rate_ <= 0.0) {  // off: the gap only ran down because the rate was 0 for 2^64 bits
        gap_ = kNever;
        return 0;
    }
    uint32_t flipped = 0;
    uint64_t at = gap_;  // index of the next corrupted bit within this packet
    while (at < bits) {
        if (at < 32)
            header ^= uint32_t{1} << at;
        else
            payload[(at - 32) >> 3] ^= static_cast<unsigned char>(1u << ((at - 32) & 7u));
        ++flipped;
        at += 1 + draw_gap();
    }
    gap_ = at - bits;
    bits_flipped_ += flipped;
    return flipped;
}

}  // namespace cudabridge::usb4

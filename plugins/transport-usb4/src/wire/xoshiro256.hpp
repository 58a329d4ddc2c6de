// xoshiro256** seeded through splitmix64 (Blackman & Vigna, https://prng.di.unimi.it/): fast,
// 256-bit state, and fully specified, so the same seed gives the same faults on every platform
// and standard library (std::mt19937_64 would too, but its distributions would not).
#pragma once

#include <cstdint>

namespace cudabridge::usb4 {

// splitmix64: spreads one 64-bit seed over the xoshiro state (the authors' recommendation).
constexpr uint64_t splitmix64(uint64_t& state) noexcept {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class xoshiro256ss {
public:
    explicit constexpr xoshiro256ss(uint64_t seed = 0) noexcept { reseed(seed); }

    constexpr void reseed(uint64_t seed) noexcept {
        for (auto& word : s_) word = splitmix64(seed);
    }

    constexpr uint64_t operator()() noexcept {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform in (0, 1]: never 0, so log() of it is finite.
    double uniform_open0() noexcept { return static_cast<double>(((*this)() >> 11) + 1) * 0x1.0p-53; }

private:
    static constexpr uint64_t rotl(uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4]{};
};

}  // namespace cudabridge::usb4

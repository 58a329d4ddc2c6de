// The injector on its own: rate 0 and 1, the count it reports, and its mean rate.
#include "wire/bit_error_injector.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

namespace cudabridge::usb4 {
namespace {

uint32_t popcount(const std::vector<unsigned char>& v) {
    uint32_t n = 0;
    for (unsigned char b : v) n += static_cast<uint32_t>(std::popcount(b));
    return n;
}

TEST(BitErrorInjector, OffFlipsNothing) {
    bit_error_injector inj(1);
    std::vector<unsigned char> payload(256, 0);
    uint32_t header = 0;
    for (int i = 0; i < 10'000; ++i) EXPECT_EQ(inj.expose(header, payload.data(), 256), 0u);
    EXPECT_EQ(header, 0u);
    EXPECT_EQ(popcount(payload), 0u);
    EXPECT_EQ(inj.bits_flipped(), 0u);
}

TEST(BitErrorInjector, RateOneFlipsEveryBit) {
    bit_error_injector inj(1);
    ASSERT_TRUE(inj.set_rate(1.0));
    std::vector<unsigned char> payload(5, 0);
    uint32_t header = 0;
    EXPECT_EQ(inj.expose(header, payload.data(), 5), 72u);
    EXPECT_EQ(header, 0xFFFFFFFFu);
    EXPECT_EQ(popcount(payload), 40u);
    EXPECT_EQ(inj.bits_flipped(), 72u);
}

TEST(BitErrorInjector, RefusesBadRates) {
    bit_error_injector inj(1);
    EXPECT_FALSE(inj.set_rate(-0.1));
    EXPECT_FALSE(inj.set_rate(1.5));
    EXPECT_FALSE(inj.set_rate(std::numeric_limits<double>::quiet_NaN()));
    EXPECT_EQ(inj.rate(), 0.0);
}

TEST(BitErrorInjector, CountsWhatItFlipsAndHitsTheRate) {
    bit_error_injector inj(42);
    constexpr double rate = 1e-4;
    ASSERT_TRUE(inj.set_rate(rate));
    std::vector<unsigned char> payload(256, 0);
    uint64_t flipped = 0;
    uint64_t seen = 0;  // bits actually found flipped, header and payload
    constexpr int packets = 100'000;
    for (int i = 0; i < packets; ++i) {
        uint32_t header = 0;
        const uint32_t n = inj.expose(header, payload.data(), 256);
        flipped += n;
        if (n != 0) {
            seen += static_cast<uint64_t>(std::popcount(header)) + popcount(payload);
            std::fill(payload.begin(), payload.end(), 0);
        }
    }
    EXPECT_EQ(flipped, inj.bits_flipped());
    EXPECT_EQ(seen, flipped);                                 // distinct bits: a flip is never undone within a packet
    const double expected = rate * packets * (32 + 8 * 256);  // 20,800
    EXPECT_NEAR(static_cast<double>(flipped), expected, 6 * std::sqrt(expected));
}

TEST(BitErrorInjector, SameSeedSameErrors) {
    bit_error_injector a(7), b(7);
    ASSERT_TRUE(a.set_rate(1e-3));
    ASSERT_TRUE(b.set_rate(1e-3));
    std::vector<unsigned char> pa(64, 0), pb(64, 0);
    for (int i = 0; i < 1000; ++i) {
        uint32_t ha = 0, hb = 0;
        ASSERT_EQ(a.expose(ha, pa.data(), 64), b.expose(hb, pb.data(), 64));
        ASSERT_EQ(ha, hb);
    }
    EXPECT_EQ(pa, pb);
}

}  // namespace
}  // namespace cudabridge::usb4

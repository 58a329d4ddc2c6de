// Modeled time: latency + packet bytes (headers included) / rate, per direction, summed on the
// wire's clock; pacing makes wall time at least the modeled time.
#include "wire_test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

namespace cudabridge::usb4 {
namespace {

using test::ceil_div;

// The formula written out independently of the library.
uint64_t expected_ns(double rate, uint64_t latency, uint64_t size, uint32_t payload) {
    const uint64_t wire_bytes = size + ceil_div(size, payload) * kTunnelPacketHeaderBytes;
    return latency + static_cast<uint64_t>(std::ceil(static_cast<double>(wire_bytes) / rate));
}

TEST(Timing, MatchesTheFormula) {
    const auto config = test::test_config(256);
    wire w(config);
    const auto src = test::random_bytes(1 << 20, 1);
    std::vector<unsigned char> dst(src.size());
    uint64_t total = 0;
    for (size_t size : {size_t{1}, size_t{256}, size_t{257}, size_t{99'999}, src.size()}) {
        uint64_t ns = 0;
        ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), size, ns), CB_OK);
        EXPECT_EQ(ns, expected_ns(config.timing.to_device_bytes_per_ns, config.timing.latency_ns, size, 256)) << size;
        total += ns;
        ASSERT_EQ(w.transfer(direction::from_device, src.data(), dst.data(), size, ns), CB_OK);
        EXPECT_EQ(ns, expected_ns(config.timing.from_device_bytes_per_ns, config.timing.latency_ns, size, 256)) << size;
        total += ns;
    }
    // 1 MiB to the device at 2 B/ns: 1,048,576 + 4,096 x 4 header bytes -> 532,480 ns + 1 us.
    uint64_t ns = 0;
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    EXPECT_EQ(ns, 533'480u);
    total += ns;
    EXPECT_EQ(w.stats().modeled_ns, total);
    EXPECT_EQ(w.clock_ns(), total);
    EXPECT_EQ(w.stats().clock_ns, total);
}

TEST(Timing, EmptyTransferIsFree) {
    wire w(test::test_config());
    uint64_t ns = 1;
    ASSERT_EQ(w.transfer(direction::to_device, nullptr, nullptr, 0, ns), CB_OK);
    EXPECT_EQ(ns, 0u);
}

TEST(Timing, ReplaysCostPacketAndRoundTrip) {
    auto config = test::test_config(256, 11);
    wire w(config);
    ASSERT_EQ(w.set_bit_error_rate(5e-5), CB_OK);
    const auto src = test::random_bytes(1 << 20, 2);
    std::vector<unsigned char> dst(src.size());
    uint64_t ns = 0;
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    const auto s = w.stats();
    ASSERT_GT(s.replays, 0u);
    EXPECT_EQ(ns, modeled_transfer_ns(config.timing, direction::to_device, s.wire_bytes, s.replays));
    EXPECT_EQ(ns, config.timing.latency_ns * (1 + s.replays) +
                      static_cast<uint64_t>(std::ceil(static_cast<double>(s.wire_bytes) / 2.0)));
}

TEST(Timing, SetTimingTakesEffect) {
    wire w(test::test_config(256));
    ASSERT_EQ(w.set_timing({1.0, 1.0, 0}), CB_OK);
    const auto src = test::random_bytes(512, 3);
    std::vector<unsigned char> dst(512);
    uint64_t ns = 0;
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), 512, ns), CB_OK);
    EXPECT_EQ(ns, 520u);
}

TEST(Timing, PacingMakesWallTimeAtLeastModeled) {
    auto config = test::test_config(256);
    config.timing = {0.0002, 0.0002, 2'000'000};  // 4 KiB + headers at 0.2 MB/s: ~20 ms, +2 ms
    wire w(config);
    w.set_pacing(true);
    const auto src = test::random_bytes(4096, 4);
    std::vector<unsigned char> dst(4096);
    uint64_t ns = 0;
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), 4096, ns), CB_OK);
    const auto wall = std::chrono::steady_clock::now() - t0;
    EXPECT_GT(ns, 20'000'000u);
    EXPECT_GE(std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count(), static_cast<int64_t>(ns));
    EXPECT_EQ(dst, src);
}

}  // namespace
}  // namespace cudabridge::usb4

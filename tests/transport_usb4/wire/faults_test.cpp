// Unplug (now and after N bytes), replug, and link-drop windows on the modeled clock.
#include "wire_test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace cudabridge::usb4 {
namespace {

constexpr unsigned char kUntouched = 0xA5;

TEST(Faults, UnplugNowThenReplug) {
    wire w(test::test_config());
    const auto src = test::random_bytes(5000, 1);
    std::vector<unsigned char> dst(src.size(), kUntouched);
    uint64_t ns = 0;
    w.unplug();
    EXPECT_FALSE(w.plugged());
    EXPECT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(w.transfer(direction::from_device, src.data(), dst.data(), src.size(), ns), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(dst, std::vector<unsigned char>(src.size(), kUntouched));
    EXPECT_EQ(w.stats().failed_transfers, 2u);
    EXPECT_EQ(w.stats().bytes_to_device, 0u);
    w.replug();
    EXPECT_TRUE(w.plugged());
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    EXPECT_EQ(dst, src);
}

TEST(Faults, UnplugMidTransferNeverReportsSuccess) {
    for (uint64_t cut : {uint64_t{1}, uint64_t{255}, uint64_t{256}, uint64_t{1000}, uint64_t{100'000}}) {
        wire w(test::test_config(256));
        const auto src = test::random_bytes(200'000, cut);
        std::vector<unsigned char> dst(src.size(), kUntouched);
        uint64_t ns = 0;
        w.unplug_after(cut);
        EXPECT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_ERR_DEVICE_LOST) << cut;
        const auto s = w.stats();
        EXPECT_LE(s.bytes_to_device, cut);
        EXPECT_EQ(s.bytes_to_device, cut / 256 * 256) << "whole packets before the cut arrive";
        EXPECT_EQ(std::memcmp(src.data(), dst.data(), s.bytes_to_device), 0);
        for (size_t i = s.bytes_to_device; i < dst.size(); ++i)
            ASSERT_EQ(dst[i], kUntouched) << "byte " << i << " written after the cut " << cut;
        EXPECT_FALSE(w.plugged());
        EXPECT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), 10, ns), CB_ERR_DEVICE_LOST);

        w.replug();
        ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
        EXPECT_EQ(dst, src);
    }
}

TEST(Faults, UnplugAfterCountsAcrossTransfersAndDirections) {
    wire w(test::test_config(256));
    const auto src = test::random_bytes(4096, 2);
    std::vector<unsigned char> dst(src.size(), kUntouched);
    uint64_t ns = 0;
    w.unplug_after(1500);
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), 1000, ns), CB_OK);
    // 500 bytes left before the cut: one whole packet (256) crosses, then the device is gone.
    EXPECT_EQ(w.transfer(direction::from_device, src.data(), dst.data(), 1000, ns), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(w.stats().bytes_from_device, 256u);
    EXPECT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), 1, ns), CB_ERR_DEVICE_LOST);
}

TEST(Faults, UnplugAfterExactlyOnTheMark) {
    wire w(test::test_config(256));
    const auto src = test::random_bytes(512, 3);
    std::vector<unsigned char> dst(src.size());
    uint64_t ns = 0;
    w.unplug_after(512);
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), 512, ns), CB_OK);
    EXPECT_EQ(dst, src);
    EXPECT_FALSE(w.plugged());
    EXPECT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), 512, ns), CB_ERR_DEVICE_LOST);
}

TEST(Faults, LinkDropWindowOnTheModeledClock) {
    const auto config = test::test_config();  // 1 us latency
    wire w(config);
    const auto src = test::random_bytes(3000, 4);
    std::vector<unsigned char> dst(src.size(), kUntouched);
    uint64_t ns = 0;
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    const uint64_t before = w.clock_ns();

    w.drop_link_for(10'000);
    EXPECT_FALSE(w.link_up());
    std::fill(dst.begin(), dst.end(), kUntouched);
    EXPECT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_ERR_LINK_DOWN);
    EXPECT_EQ(ns, config.timing.latency_ns) << "a refused transfer costs one latency";
    EXPECT_EQ(dst, std::vector<unsigned char>(src.size(), kUntouched));
    EXPECT_EQ(w.clock_ns(), before + 1000);

    w.advance_clock(8'999);  // 1 ns short of the window's end
    EXPECT_EQ(w.transfer(direction::from_device, src.data(), dst.data(), src.size(), ns), CB_ERR_LINK_DOWN);
    EXPECT_TRUE(w.link_up());  // that refusal's latency carried the clock past the window
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    EXPECT_EQ(dst, src);
    EXPECT_EQ(w.stats().failed_transfers, 2u);
}

TEST(Faults, RetriesAloneOutlastADrop) {
    wire w(test::test_config());  // each refusal advances the clock by 1 us
    const auto src = test::random_bytes(100, 5);
    std::vector<unsigned char> dst(src.size());
    w.drop_link_for(5'500);
    int refused = 0;
    uint64_t ns = 0;
    while (w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns) == CB_ERR_LINK_DOWN) {
        ASSERT_LT(++refused, 100);
    }
    EXPECT_EQ(refused, 6);
    EXPECT_EQ(dst, src);
}

}  // namespace
}  // namespace cudabridge::usb4

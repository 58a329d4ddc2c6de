// Bit errors in flight: every corrupted packet is caught by its CRC and replayed; nothing corrupt
// is ever reported as good; too many errors end in CB_ERR_INTEGRITY; a seed fixes the outcome.
#include "wire_test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace cudabridge::usb4 {
namespace {

TEST(BitErrorReplay, MillionPacketsEveryCorruptionCaught) {
    // 64 MiB in 64-byte packets = 2^20 packets (the issue asks for at least 10^6). At 2e-5 errors
    // per bit and 544 bits per packet, about 1.1 % of sends are corrupted: ~11,000 replays.
    constexpr uint32_t payload = 64;
    constexpr size_t chunk = size_t{4} << 20;
    constexpr int chunks = 16;
    wire w(test::test_config(payload, 2024));
    ASSERT_EQ(w.set_bit_error_rate(2e-5), CB_OK);
    const auto src = test::random_bytes(chunk, 77);
    std::vector<unsigned char> dst(chunk);
    for (int i = 0; i < chunks; ++i) {
        std::memset(dst.data(), 0, chunk);
        uint64_t ns = 0;
        const auto d = (i & 1) ? direction::from_device : direction::to_device;
        ASSERT_EQ(w.transfer(d, src.data(), dst.data(), chunk, ns), CB_OK) << i;
        ASSERT_EQ(std::memcmp(src.data(), dst.data(), chunk), 0) << "corrupt bytes delivered, chunk " << i;
    }
    const auto s = w.stats();
    EXPECT_EQ(s.packets_to_device + s.packets_from_device, uint64_t{1} << 20);
    EXPECT_GT(s.corrupted_packets, 5'000u);
    EXPECT_GE(s.injected_bit_errors, s.corrupted_packets);
    EXPECT_EQ(s.crc_errors, s.corrupted_packets);  // every corrupted send detected...
    EXPECT_EQ(s.undetected_errors, 0u);            // ...none slipped through
    EXPECT_EQ(s.replays, s.crc_errors);            // ...and each one replayed
    EXPECT_EQ(s.failed_transfers, 0u);
    EXPECT_EQ(s.wire_bytes, (uint64_t{chunk} * chunks) +
                                (s.packets_to_device + s.packets_from_device) * kTunnelPacketHeaderBytes +
                                s.replays * (kTunnelPacketHeaderBytes + payload));
}

TEST(BitErrorReplay, HeaderCorruptionIsCaughtToo) {
    // With 1-byte payloads, 32 of every 40 bits in flight are header bits.
    wire w(test::test_config(1, 5));
    ASSERT_EQ(w.set_bit_error_rate(2e-3), CB_OK);
    const auto src = test::random_bytes(200'000, 6);
    std::vector<unsigned char> dst(src.size());
    uint64_t ns = 0;
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    EXPECT_EQ(dst, src);
    const auto s = w.stats();
    EXPECT_GT(s.crc_errors, 10'000u);
    EXPECT_EQ(s.crc_errors, s.corrupted_packets);
    EXPECT_EQ(s.undetected_errors, 0u);
    EXPECT_EQ(s.replays, s.crc_errors);
}

TEST(BitErrorReplay, ReplaysExhaustedMeansIntegrityError) {
    wire w(test::test_config(256, 8));
    ASSERT_EQ(w.set_bit_error_rate(1e-2), CB_OK);  // ~20 flips per 2,080-bit packet: never clean
    const auto src = test::random_bytes(64 * 1024, 9);
    std::vector<unsigned char> dst(src.size());
    uint64_t ns = 0;
    EXPECT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_ERR_INTEGRITY);
    const auto s = w.stats();
    EXPECT_EQ(s.failed_transfers, 1u);
    EXPECT_EQ(s.crc_errors, kDefaultRetryLimit + 1);  // the first packet: one send, 8 replays
    EXPECT_EQ(s.replays, kDefaultRetryLimit);
    EXPECT_EQ(s.packets_to_device, 0u);
    EXPECT_EQ(s.bytes_to_device, 0u);
    EXPECT_GT(ns, 0u);

    // A smaller retry limit gives up sooner; back to a clean link, the wire works again.
    w.set_retry_limit(2);
    EXPECT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_ERR_INTEGRITY);
    EXPECT_EQ(w.stats().crc_errors, kDefaultRetryLimit + 1 + 3);
    ASSERT_EQ(w.set_bit_error_rate(0.0), CB_OK);
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    EXPECT_EQ(dst, src);
}

TEST(BitErrorReplay, FailsOnlyAtThePacketThatRanOut) {
    // Errors common enough that some packet eventually fails its 9 sends: the packets before it
    // arrived (counted), and replays == crc_errors - 1 (the last packet's final failure).
    wire w(test::test_config(256, 12));
    w.set_retry_limit(1);
    ASSERT_EQ(w.set_bit_error_rate(1e-4), CB_OK);  // ~19 % of sends corrupted
    const auto src = test::random_bytes(1 << 20, 13);
    std::vector<unsigned char> dst(src.size());
    uint64_t ns = 0;
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_ERR_INTEGRITY);
    const auto s = w.stats();
    EXPECT_EQ(s.replays + 1, s.crc_errors);
    EXPECT_EQ(s.bytes_to_device, s.packets_to_device * 256);
    EXPECT_EQ(std::memcmp(src.data(), dst.data(), s.bytes_to_device), 0);
    EXPECT_EQ(s.undetected_errors, 0u);
}

TEST(BitErrorReplay, SameSeedSameCounters) {
    const auto src = test::random_bytes(3 << 20, 14);
    auto run = [&](uint64_t seed) {
        wire w(test::test_config(128, seed));
        EXPECT_EQ(w.set_bit_error_rate(3e-5), CB_OK);
        std::vector<unsigned char> dst(src.size());
        for (int i = 0; i < 3; ++i) {
            uint64_t ns = 0;
            EXPECT_EQ(w.transfer(i == 1 ? direction::from_device : direction::to_device, src.data(), dst.data(),
                                 src.size() - static_cast<size_t>(i) * 1000, ns),
                      CB_OK);
        }
        return w.stats();
    };
    const auto a = run(99), b = run(99), c = run(100);
    EXPECT_GT(a.crc_errors, 0u);
    EXPECT_EQ(a.crc_errors, b.crc_errors);
    EXPECT_EQ(a.replays, b.replays);
    EXPECT_EQ(a.injected_bit_errors, b.injected_bit_errors);
    EXPECT_EQ(a.corrupted_packets, b.corrupted_packets);
    EXPECT_EQ(a.wire_bytes, b.wire_bytes);
    EXPECT_EQ(a.modeled_ns, b.modeled_ns);
    EXPECT_NE(a.injected_bit_errors, c.injected_bit_errors);  // a different seed, different faults

    // reseed() restarts the stream: the same wire then repeats itself.
    wire w(test::test_config(128, 1));
    ASSERT_EQ(w.set_bit_error_rate(3e-5), CB_OK);
    std::vector<unsigned char> dst(src.size());
    uint64_t ns = 0;
    w.reseed(99);
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    const uint64_t first = w.stats().injected_bit_errors;
    w.reseed(99);
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), src.size(), ns), CB_OK);
    EXPECT_EQ(w.stats().injected_bit_errors, 2 * first);
}

}  // namespace
}  // namespace cudabridge::usb4

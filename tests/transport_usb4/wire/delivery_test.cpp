// Bytes arrive bit-exact, and the packet and byte counters match ceil(size / payload).
#include "wire_test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

namespace cudabridge::usb4 {
namespace {

using test::ceil_div;

struct delivery_case {
    uint32_t payload;
    size_t size;
};

class Delivery : public ::testing::TestWithParam<delivery_case> {};

TEST_P(Delivery, BitExactWithExactCounters) {
    const auto [payload, size] = GetParam();
    wire w(test::test_config(payload));
    uint64_t packets = 0, bytes = 0;
    // Misaligned on purpose: the copy and the CRC must not care.
    for (size_t src_off : {size_t{0}, size_t{1}}) {
        for (size_t dst_off : {size_t{0}, size_t{3}}) {
            auto src = test::random_bytes(size + src_off, size * 31 + src_off * 7 + dst_off);
            std::vector<unsigned char> dst(size + dst_off + 1, 0x5A);
            uint64_t ns = 0;
            ASSERT_EQ(w.transfer(direction::to_device, src.data() + src_off, dst.data() + dst_off, size, ns), CB_OK);
            if (size > 0) {  // memcmp wants non-null pointers even for 0 bytes
                EXPECT_EQ(std::memcmp(src.data() + src_off, dst.data() + dst_off, size), 0);
            }
            EXPECT_EQ(dst.back(), 0x5A) << "wrote past the end";
            for (size_t i = 0; i < dst_off; ++i) EXPECT_EQ(dst[i], 0x5A) << "wrote before the start";
            packets += ceil_div(size, payload);
            bytes += size;
        }
    }
    const auto s = w.stats();
    EXPECT_EQ(s.packets_to_device, packets);
    EXPECT_EQ(s.bytes_to_device, bytes);
    EXPECT_EQ(s.wire_bytes, bytes + packets * kTunnelPacketHeaderBytes);
    EXPECT_EQ(s.packets_from_device, 0u);
    EXPECT_EQ(s.bytes_from_device, 0u);
    EXPECT_EQ(s.crc_errors, 0u);
    EXPECT_EQ(s.replays, 0u);
    EXPECT_EQ(s.transfers, 4u);
    EXPECT_EQ(s.failed_transfers, 0u);
}

INSTANTIATE_TEST_SUITE_P(Sizes, Delivery,
                         ::testing::Values(delivery_case{256, 0}, delivery_case{256, 1}, delivery_case{256, 255},
                                           delivery_case{256, 256}, delivery_case{256, 257},
                                           delivery_case{256, 16 * 256 - 1}, delivery_case{256, 16 * 256 + 1},
                                           delivery_case{256, (size_t{1} << 20) + 3}, delivery_case{128, 100'000},
                                           delivery_case{64, 4097}, delivery_case{1, 1000}, delivery_case{100, 12'345}),
                         [](const auto& p) {
                             return "p" + std::to_string(p.param.payload) + "_n" + std::to_string(p.param.size);
                         });

TEST(Delivery, DirectionsCountedApart) {
    wire w(test::test_config());
    const auto src = test::random_bytes(1000, 5);
    std::vector<unsigned char> dst(1000);
    uint64_t ns = 0;
    ASSERT_EQ(w.transfer(direction::to_device, src.data(), dst.data(), 1000, ns), CB_OK);
    ASSERT_EQ(w.transfer(direction::from_device, src.data(), dst.data(), 600, ns), CB_OK);
    const auto s = w.stats();
    EXPECT_EQ(s.bytes_to_device, 1000u);
    EXPECT_EQ(s.packets_to_device, 4u);
    EXPECT_EQ(s.bytes_from_device, 600u);
    EXPECT_EQ(s.packets_from_device, 3u);
}

TEST(Delivery, ConcurrentTransfersAllArrive) {
    wire w(test::test_config(256));
    constexpr int threads = 4, rounds = 20;
    constexpr size_t size = 50'001;
    std::vector<std::thread> pool;
    std::vector<int> bad(threads, 0);
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            const auto src = test::random_bytes(size, 100 + t);
            std::vector<unsigned char> dst(size);
            for (int r = 0; r < rounds; ++r) {
                std::fill(dst.begin(), dst.end(), 0);
                uint64_t ns = 0;
                const auto d = (t & 1) ? direction::from_device : direction::to_device;
                if (w.transfer(d, src.data(), dst.data(), size, ns) != CB_OK || dst != src) ++bad[t];
            }
        });
    }
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) EXPECT_EQ(bad[t], 0) << t;
    const auto s = w.stats();
    EXPECT_EQ(s.bytes_to_device + s.bytes_from_device, uint64_t{threads} * rounds * size);
    EXPECT_EQ(s.packets_to_device + s.packets_from_device, uint64_t{threads} * rounds * ceil_div(size, 256));
}

TEST(Delivery, RefusesBadArguments) {
    wire w(test::test_config());
    unsigned char buf[4] = {};
    uint64_t ns = 7;
    EXPECT_EQ(w.transfer(direction::to_device, nullptr, buf, 4, ns), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(w.transfer(direction::to_device, buf, nullptr, 4, ns), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(ns, 0u);
    EXPECT_EQ(w.transfer(direction::to_device, nullptr, nullptr, 0, ns), CB_OK);
    EXPECT_EQ(w.set_payload_bytes(0), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(w.set_payload_bytes(257), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(w.set_timing({0.0, 1.0, 0}), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(w.set_bit_error_rate(-1.0), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(w.set_bit_error_rate(2.0), CB_ERR_INVALID_ARGUMENT);
    auto bad = test::test_config(300);
    EXPECT_EQ(wire::validate(bad), CB_ERR_INVALID_ARGUMENT);
    EXPECT_THROW(wire{bad}, std::invalid_argument);
}

}  // namespace
}  // namespace cudabridge::usb4

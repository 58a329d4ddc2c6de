// CRC-32C wrapper: check value, chaining, and the header fold agreeing with ISA-L.
#include "wire/crc32c.hpp"
#include "wire/tunnel_header.hpp"
#include "wire_test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string_view>

namespace cudabridge::usb4 {
namespace {

TEST(Crc32c, KnownAnswer) {
    constexpr std::string_view check = "123456789";
    // CRC-32C check value (docs/link-figures.md §4.1; RFC 3720 / Castagnoli catalogue).
    EXPECT_EQ(crc32c(check.data(), check.size()), 0xE3069283u);
    EXPECT_EQ(crc32c(nullptr, 0), 0u);
}

TEST(Crc32c, ChainsLikeOneBuffer) {
    const auto data = test::random_bytes(10'007, 3);
    const uint32_t whole = crc32c(data.data(), data.size());
    for (size_t split : {size_t{0}, size_t{1}, size_t{4}, size_t{4096}, data.size()}) {
        const uint32_t first = crc32c(data.data(), split);
        EXPECT_EQ(crc32c(data.data() + split, data.size() - split, first), whole) << split;
    }
}

TEST(Crc32c, HeaderFoldMatchesIsal) {
    // The packet CRC folds the 4 header bytes with a table, then runs ISA-L over the payload; it
    // must equal ISA-L over header ++ payload laid out contiguously.
    const auto payload = test::random_bytes(256, 9);
    const auto words = test::random_bytes(4 * 200, 10);
    for (size_t i = 0; i < 200; ++i) {
        uint32_t header = 0;
        std::memcpy(&header, words.data() + 4 * i, 4);
        if (i == 0) header = make_tunnel_header(kPcieHopId, 256, 0);
        unsigned char frame[4 + 256];
        for (int b = 0; b < 4; ++b) frame[b] = static_cast<unsigned char>(header >> (8 * b));
        std::memcpy(frame + 4, payload.data(), payload.size());
        const uint32_t folded = ~crc32c_raw(crc32c_raw_u32le(kCrc32cRawInit, header), payload.data(), 256);
        EXPECT_EQ(folded, crc32c(frame, sizeof frame)) << i;
        EXPECT_EQ(crc32c_raw_u32le(kCrc32cRawInit, header), crc32c_raw(kCrc32cRawInit, frame, 4)) << i;
    }
}

TEST(TunnelHeader, FieldsRoundTrip) {
    for (uint32_t len : {1u, 2u, 255u, 256u}) {
        const uint32_t h = make_tunnel_header(kPcieHopId, len, 0x1234);
        EXPECT_EQ(tunnel_header_hop_id(h), kPcieHopId);
        EXPECT_EQ(tunnel_header_payload_len(h), len);
        EXPECT_EQ(tunnel_header_sequence(h), 0x1234u);
    }
}

}  // namespace
}  // namespace cudabridge::usb4

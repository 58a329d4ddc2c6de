// The generation catalogue: keys, aliases, ABI generations and per-generation facts.
#include "link/generation.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cudabridge::usb4 {
namespace {

TEST(Usb4Generation, KeysRoundTrip) {
    for (const auto& s : all_generations()) {
        const auto parsed = parse_generation(s.key);
        ASSERT_TRUE(parsed.has_value()) << s.key;
        EXPECT_EQ(*parsed, s.gen);
        EXPECT_STREQ(generation_key(s.gen), s.key);
        EXPECT_EQ(&spec_of(s.gen), &s);
    }
}

TEST(Usb4Generation, ParsesEveryDocumentedNameAndAlias) {
    EXPECT_EQ(parse_generation("tb3"), generation::tb3);
    EXPECT_EQ(parse_generation("tb4"), generation::tb4);
    EXPECT_EQ(parse_generation("usb4-20"), generation::usb4_20);
    EXPECT_EQ(parse_generation("usb4-40"), generation::usb4_40);
    EXPECT_EQ(parse_generation("usb4v2-80"), generation::usb4v2_80);
    EXPECT_EQ(parse_generation("tb5"), generation::usb4v2_80);
    EXPECT_EQ(parse_generation("usb4v2-120"), generation::usb4v2_120);
    EXPECT_EQ(parse_generation("oculink"), generation::oculink);
    EXPECT_EQ(parse_generation("TB5"), generation::usb4v2_80);
    EXPECT_EQ(parse_generation("OCuLink"), generation::oculink);
}

TEST(Usb4Generation, RejectsUnknownNames) {
    for (const char* bad : {"", "tb", "tb6", "usb4", "usb4-80", "usb3", " tb4", "tb4 ", "usb4v2"})
        EXPECT_FALSE(parse_generation(bad).has_value()) << '"' << bad << '"';
}

TEST(Usb4Generation, AbiGenerations) {
    EXPECT_EQ(spec_of(generation::tb3).abi_generation, CB_LINK_TB3);
    EXPECT_EQ(spec_of(generation::tb4).abi_generation, CB_LINK_TB4);
    EXPECT_EQ(spec_of(generation::usb4_20).abi_generation, CB_LINK_USB4_V1);
    EXPECT_EQ(spec_of(generation::usb4_40).abi_generation, CB_LINK_USB4_V1);
    EXPECT_EQ(spec_of(generation::usb4v2_80).abi_generation, CB_LINK_USB4_V2);
    EXPECT_EQ(spec_of(generation::usb4v2_120).abi_generation, CB_LINK_USB4_V2);
    EXPECT_EQ(spec_of(generation::oculink).abi_generation, CB_LINK_OCULINK);
}

TEST(Usb4Generation, LaneSignalling) {
    // Per-lane data rate after encoding: TB3 20.0, Gen2 9.7, Gen3 19.4, Gen4 40.2 Gb/s.
    const auto lane = [](generation g) {
        const auto& s = spec_of(g);
        return s.symbol_rate_gbaud * data_bits_per_symbol(s.encoding);
    };
    EXPECT_NEAR(lane(generation::tb3), 20.0, 1e-9);
    EXPECT_NEAR(lane(generation::usb4_20), 9.697, 1e-3);
    EXPECT_NEAR(lane(generation::usb4_40), 19.394, 1e-3);
    EXPECT_NEAR(lane(generation::usb4v2_80), 40.229, 1e-3);
    EXPECT_EQ(spec_of(generation::usb4v2_120).lanes_h2d, 3u);
    EXPECT_EQ(spec_of(generation::usb4v2_120).lanes_d2h, 1u);
    EXPECT_STREQ(encoding_name(line_encoding::pam3_11b7t), "PAM3 11b/7T");
}

TEST(Usb4Generation, PcieRates) {
    EXPECT_DOUBLE_EQ(pcie_gts(3), 8.0);
    EXPECT_DOUBLE_EQ(pcie_gts(4), 16.0);
    EXPECT_DOUBLE_EQ(pcie_gts(9), 0.0);
    EXPECT_NEAR(pcie_lane_data_gbps(4) * 4, 63.015, 1e-3);  // PCIe 4.0 x4
    EXPECT_NEAR(pcie_lane_data_gbps(2), 4.0, 1e-12);        // 8b/10b
}

}  // namespace
}  // namespace cudabridge::usb4

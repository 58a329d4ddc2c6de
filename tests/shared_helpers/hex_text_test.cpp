// One way to write a number in hex for people: sdk::hex_text. Addresses in fault messages, PCI
// ids in reports and JSON, bitmasks in query fields and the store's application id all go
// through it, so they agree on the "0x" prefix, lower-case digits and zero padding.
#include <cudabridge/cpp/hex_text.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using cudabridge::sdk::hex_text;

TEST(HexText, IsZeroXThenLowerCaseDigitsWithNoPaddingByDefault) {
    EXPECT_EQ(hex_text(0), "0x0");
    EXPECT_EQ(hex_text(0xABCDEF), "0xabcdef");
    EXPECT_EQ(hex_text(0x7f0000001000ull), "0x7f0000001000");
}

TEST(HexText, PadsWithZerosToTheDigitsAskedFor) {
    EXPECT_EQ(hex_text(0x10de, 4), "0x10de");
    EXPECT_EQ(hex_text(0x4, 4), "0x0004");
    EXPECT_EQ(hex_text(0x43554442, 8), "0x43554442");
    EXPECT_EQ(hex_text(0x24, 16), "0x0000000000000024");
}

TEST(HexText, NeverCutsAValueWiderThanThePadding) { EXPECT_EQ(hex_text(0x12345, 4), "0x12345"); }

TEST(HexText, TakesTheWholeUnsigned64BitRange) {
    EXPECT_EQ(hex_text(std::numeric_limits<std::uint64_t>::max()), "0xffffffffffffffff");
    EXPECT_EQ(hex_text(std::numeric_limits<std::uint64_t>::max(), 16), "0xffffffffffffffff");
}

TEST(HexText, ClampsAPaddingOutside1To16) {
    EXPECT_EQ(hex_text(5, 0), "0x5");
    EXPECT_EQ(hex_text(5, -3), "0x5");
    EXPECT_EQ(hex_text(5, 40), "0x0000000000000005");
}

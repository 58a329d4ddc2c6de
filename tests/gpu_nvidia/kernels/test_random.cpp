// Philox4x32-10 against Random123's published known answers (tests/kat_vectors, "philox4x32 10"
// lines), and the uniform kernel's reproducibility.
#include <gtest/gtest.h>

#include <cstring>

#include "common/kernels/elementwise.hpp"
#include "common/kernels/philox.hpp"
#include "test_util.hpp"

using namespace kt;
namespace px = cudabridge::nv::kernels::philox;

TEST(Philox, KnownAnswerVectors) {
    struct kat {
        px::u32x4 ctr;
        px::u32x2 key;
        std::uint32_t want[4];
    };
    const kat kats[] = {
        {{{0, 0, 0, 0}}, {{0, 0}}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
         {{0xffffffff, 0xffffffff}},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
         {{0xa4093822, 0x299f31d0}},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (const auto& k : kats) {
        px::u32x4 r = px::philox4x32_10(k.ctr, k.key);
        for (int i = 0; i < 4; ++i) EXPECT_EQ(r.v[i], k.want[i]) << i;
    }
    static_assert(px::philox4x32_10({{0, 0, 0, 0}}, {{0, 0}}).v[0] == 0x6627e8d5u, "constexpr-evaluable");
}

TEST(Philox, UniformIsReproducibleAndInRange) {
    std::string error;
    const std::int64_t n = 100003;
    for (auto d : {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64}) {
        tensor a(d, {n}), b(d, {n}), c(d, {n});
        engine e1(1), e4(4);
        ASSERT_EQ(random_uniform(a.view(), 42, 7, error, e1), CB_OK);
        ASSERT_EQ(random_uniform(b.view(), 42, 7, error, e4), CB_OK);
        ASSERT_EQ(random_uniform(c.view(), 43, 7, error, e4), CB_OK);
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.bytes()), 0);
        EXPECT_NE(std::memcmp(a.data(), c.data(), a.bytes()), 0);
        double mean = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            double v = get(a, i);
            ASSERT_GE(v, 0.0);
            ASSERT_LT(v, 1.0);
            mean += v;
        }
        EXPECT_NEAR(mean / n, 0.5, 0.01);
    }
    // Element i is a pure function of (seed, offset, i): check the stream layout directly.
    tensor f(CB_DTYPE_FLOAT32, {9});
    ASSERT_EQ(random_uniform(f.view(), 0x0123456789abcdefULL, 5, error), CB_OK);
    px::u32x4 blk2 = px::philox4x32_10({{2, 0, 5, 0}}, {{0x89abcdef, 0x01234567}});
    EXPECT_EQ(f.as<float>()[8], float(blk2.v[0] >> 8) / 16777216.0f);
    EXPECT_EQ(random_uniform(tensor(CB_DTYPE_INT32, {3}).view(), 1, 0, error), CB_ERR_UNSUPPORTED);
}

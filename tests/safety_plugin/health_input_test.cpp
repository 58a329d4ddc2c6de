// Reading the ABI records: full-size and ABI 1.0-sized histories and samples, and bad input.
#include "health_samples.hpp"
#include "policy/health_input.hpp"

#include <gtest/gtest.h>

namespace sf = cudabridge::plugins::safety;
using cudabridge::test::healthy_sample;
using cudabridge::test::history;
using cudabridge::test::v10_history;

namespace {

history three_samples() {
    history h;
    for (int i = 0; i < 3; ++i) {
        auto s = healthy_sample();
        s.temperature_c = 50 + i;
        s.ecc_uncorrected = static_cast<uint64_t>(i);
        s.oldest_pending_ms = 7000;
        s.device_lost = 1;
        h.samples.push_back(s);
    }
    h.recovery_attempts = 2;
    h.emergency_stopped = true;
    h.failed = true;
    return h;
}

}  // namespace

TEST(SafetyHealthInput, TheAbiRecordSizesAreThoseOfVersionOne) {
    EXPECT_EQ(sf::sample_size_v1_0, cudabridge::test::v10_sample_size);
    EXPECT_EQ(sf::history_size_v1_0, cudabridge::test::v10_history_size);
}

TEST(SafetyHealthInput, ReadsTheCurrentAndPreviousSamplesOfAFullHistory) {
    const history h = three_samples();
    const cb_health_history view = h.view();
    sf::health_input in;
    ASSERT_FALSE(sf::read_health_input(&view, in));
    EXPECT_EQ(in.recovery_attempts, 2u);
    EXPECT_TRUE(in.emergency_stopped);
    EXPECT_TRUE(in.failed);
    EXPECT_DOUBLE_EQ(in.current.temperature_c, 52);
    ASSERT_TRUE(in.previous);
    EXPECT_DOUBLE_EQ(in.previous->temperature_c, 51);
    EXPECT_EQ(in.current.oldest_pending_ms, 7000u);
    EXPECT_EQ(in.current.device_lost, 1);
}

TEST(SafetyHealthInput, OneSampleHasNoPrevious) {
    history h;
    h.samples = {healthy_sample()};
    sf::health_input in;
    const cb_health_history view = h.view();
    ASSERT_FALSE(sf::read_health_input(&view, in));
    EXPECT_FALSE(in.previous);
}

TEST(SafetyHealthInput, VersionOneRecordsReadWithNewerFieldsZero) {
    const v10_history old(three_samples());
    const cb_health_history view = old.view();
    sf::health_input in;
    ASSERT_FALSE(sf::read_health_input(&view, in));
    EXPECT_EQ(in.recovery_attempts, 2u);
    EXPECT_FALSE(in.emergency_stopped);  // past a 1.0 history: not read
    EXPECT_FALSE(in.failed);
    EXPECT_DOUBLE_EQ(in.current.temperature_c, 52);  // 88-byte stride
    ASSERT_TRUE(in.previous);
    EXPECT_DOUBLE_EQ(in.previous->temperature_c, 51);
    EXPECT_EQ(in.previous->ecc_uncorrected, 1u);
    EXPECT_EQ(in.current.oldest_pending_ms, 0u);
    EXPECT_EQ(in.current.device_lost, 0);
    EXPECT_EQ(in.current.struct_size, cudabridge::test::v10_sample_size);
}

TEST(SafetyHealthInput, RefusesBadHistories) {
    history h = three_samples();
    sf::health_input in;

    EXPECT_TRUE(sf::read_health_input(nullptr, in));

    cb_health_history v = h.view();
    v.struct_size = sf::history_size_v1_0 - 1;
    EXPECT_TRUE(sf::read_health_input(&v, in));

    v = h.view();
    v.samples = nullptr;
    EXPECT_TRUE(sf::read_health_input(&v, in));

    v = h.view();
    v.sample_count = 0;
    auto why = sf::read_health_input(&v, in);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("count 0"), std::string::npos);

    h.samples[0].struct_size = 40;  // smaller than ABI 1.0
    v = h.view();
    EXPECT_TRUE(sf::read_health_input(&v, in));

    h.samples[0].struct_size = 1u << 20;  // garbage
    v = h.view();
    EXPECT_TRUE(sf::read_health_input(&v, in));

    h = three_samples();
    h.samples[2].struct_size = 8;  // the current one is broken
    v = h.view();
    EXPECT_TRUE(sf::read_health_input(&v, in));
}

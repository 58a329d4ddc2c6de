// Decisions: marked failed, thermal stop and resume, the ladder with attempts, auto recovery
// off, and the warnings of a device without faults.
#include "has_text.hpp"
#include "health_samples.hpp"
#include "policy/decide.hpp"

#include <gtest/gtest.h>

namespace sf = cudabridge::plugins::safety;
using cudabridge::test::has_text;
using cudabridge::test::healthy_sample;

namespace {

sf::health_input input(const cb_health_sample& current, uint32_t attempts = 0) {
    sf::health_input in;
    in.previous = healthy_sample();
    in.current = current;
    in.recovery_attempts = attempts;
    return in;
}

cb_health_sample at(double temperature_c) {
    auto s = healthy_sample();
    s.temperature_c = temperature_c;
    return s;
}

cb_health_sample with_error_rate(double rate) {
    auto s = healthy_sample();
    s.error_rate = rate;
    return s;
}

cb_health_sample link_down() {
    auto s = healthy_sample();
    s.link_up = 0;
    return s;
}

sf::parameters auto_recovery_off() {
    sf::parameters p;
    p.enable_auto_recovery = false;
    return p;
}

}  // namespace

TEST(SafetyDecide, HealthyIsNone) {
    const sf::decision d = sf::decide(input(healthy_sample()), {});
    EXPECT_EQ(d.action, CB_ACTION_NONE);
    EXPECT_EQ(d.delay_ms, 0u);
    EXPECT_TRUE(has_text(d.reason, "healthy"));
    EXPECT_TRUE(has_text(d.reason, "60.0 °C"));
}

TEST(SafetyDecide, AFailedDeviceStaysFailed) {
    sf::health_input in = input(at(95), 3);
    in.failed = true;
    const sf::decision d = sf::decide(in, {});
    EXPECT_EQ(d.action, CB_ACTION_MARK_FAILED);
    EXPECT_TRUE(has_text(d.reason, "after 3 recovery attempts"));
    EXPECT_TRUE(has_text(d.reason, "manual reset"));
}

TEST(SafetyDecide, AtTheThermalLimitStopsEvenWithAutoRecoveryOff) {
    EXPECT_EQ(sf::decide(input(at(90)), {}).action, CB_ACTION_EMERGENCY_STOP);
    const sf::decision d = sf::decide(input(at(97.4)), auto_recovery_off());
    EXPECT_EQ(d.action, CB_ACTION_EMERGENCY_STOP);
    EXPECT_TRUE(has_text(d.reason, "97.4 °C"));
    EXPECT_TRUE(has_text(d.reason, "90 °C"));
    // Over the limit wins over any fault.
    auto s = link_down();
    s.temperature_c = 91;
    EXPECT_EQ(sf::decide(input(s, 1), {}).action, CB_ACTION_EMERGENCY_STOP);
    // And during an emergency stop.
    sf::health_input in = input(at(92));
    in.emergency_stopped = true;
    EXPECT_EQ(sf::decide(in, {}).action, CB_ACTION_EMERGENCY_STOP);
}

TEST(SafetyDecide, AfterAnEmergencyStopResumesOnlyBelowTheHysteresis) {
    sf::health_input in = input(at(87));
    in.emergency_stopped = true;
    sf::decision d = sf::decide(in, {});
    EXPECT_EQ(d.action, CB_ACTION_NONE);
    EXPECT_TRUE(has_text(d.reason, "cooling"));
    EXPECT_TRUE(has_text(d.reason, "87.0 °C"));
    EXPECT_TRUE(has_text(d.reason, "restart below 85 °C"));

    in.current.temperature_c = 85;  // at limit - hysteresis: not below yet
    EXPECT_EQ(sf::decide(in, {}).action, CB_ACTION_NONE);

    in.current.temperature_c = 84.5;
    d = sf::decide(in, {});
    EXPECT_EQ(d.action, CB_ACTION_RESUME);
    EXPECT_TRUE(has_text(d.reason, "84.5 °C"));

    d = sf::decide(in, auto_recovery_off());
    EXPECT_EQ(d.action, CB_ACTION_WARN);
    EXPECT_TRUE(has_text(d.reason, "manually"));

    sf::parameters wide;
    wide.thermal_hysteresis_c = 20;  // restart below 70 °C
    EXPECT_EQ(sf::decide(in, wide).action, CB_ACTION_NONE);
}

TEST(SafetyDecide, FirstAttemptHasNoDelayAndTheReasonHasTheFigures) {
    const sf::decision d = sf::decide(input(with_error_rate(0.021)), {});
    EXPECT_EQ(d.action, CB_ACTION_SOFT_RESET);
    EXPECT_EQ(d.delay_ms, 0u);
    EXPECT_EQ(d.reason, "error rate 2.1% over the 1.0% threshold: soft reset (attempt 1 of 3).");
}

TEST(SafetyDecide, RepeatedAttemptsClimbTheLadderWithTheRetryDelay) {
    const auto s = with_error_rate(0.05);
    sf::decision d = sf::decide(input(s, 1), {});
    EXPECT_EQ(d.action, CB_ACTION_HARD_RESET);
    EXPECT_EQ(d.delay_ms, 500u);
    EXPECT_TRUE(has_text(d.reason, "attempt 2 of 3"));
    EXPECT_TRUE(has_text(d.reason, "escalated from soft reset after 1 failed attempt"));
    d = sf::decide(input(s, 2), {});
    EXPECT_EQ(d.action, CB_ACTION_RECONNECT);
    EXPECT_EQ(d.delay_ms, 500u);
    sf::parameters p;
    p.retry_delay_ms = 1234;
    p.max_retry_count = 10;
    d = sf::decide(input(s, 7), p);
    EXPECT_EQ(d.action, CB_ACTION_RECONNECT);
    EXPECT_EQ(d.delay_ms, 1234u);
}

TEST(SafetyDecide, ALinkFaultStaysAtReconnect) {
    EXPECT_EQ(sf::decide(input(link_down(), 0), {}).action, CB_ACTION_RECONNECT);
    EXPECT_EQ(sf::decide(input(link_down(), 0), {}).delay_ms, 0u);
    const sf::decision d = sf::decide(input(link_down(), 2), {});
    EXPECT_EQ(d.action, CB_ACTION_RECONNECT);
    EXPECT_EQ(d.delay_ms, 500u);
    EXPECT_FALSE(has_text(d.reason, "escalated"));
}

TEST(SafetyDecide, SpentAttemptsMarkTheDeviceFailed) {
    sf::decision d = sf::decide(input(with_error_rate(0.05), 3), {});
    EXPECT_EQ(d.action, CB_ACTION_MARK_FAILED);
    EXPECT_EQ(d.delay_ms, 0u);
    EXPECT_TRUE(has_text(d.reason, "after 3 recovery attempts"));
    sf::parameters one;
    one.max_retry_count = 1;
    EXPECT_EQ(sf::decide(input(link_down(), 0), one).action, CB_ACTION_RECONNECT);
    EXPECT_EQ(sf::decide(input(link_down(), 1), one).action, CB_ACTION_MARK_FAILED);
    sf::parameters none;
    none.max_retry_count = 0;
    EXPECT_EQ(sf::decide(input(link_down(), 0), none).action, CB_ACTION_MARK_FAILED);
}

TEST(SafetyDecide, TheHighestRungAmongFaultsWins) {
    auto s = with_error_rate(0.05);
    s.integrity_failure = 1;
    const sf::decision d = sf::decide(input(s), {});
    EXPECT_EQ(d.action, CB_ACTION_HARD_RESET);
    EXPECT_TRUE(has_text(d.reason, "data-integrity"));
    EXPECT_TRUE(has_text(d.reason, "1 other fault"));
}

TEST(SafetyDecide, AutoRecoveryOffOnlyWarnsWithWhatItWouldHaveDone) {
    sf::decision d = sf::decide(input(with_error_rate(0.05)), auto_recovery_off());
    EXPECT_EQ(d.action, CB_ACTION_WARN);
    EXPECT_EQ(d.delay_ms, 0u);
    EXPECT_TRUE(has_text(d.reason, "auto recovery is off"));
    EXPECT_TRUE(has_text(d.reason, "soft reset"));
    d = sf::decide(input(link_down()), auto_recovery_off());
    EXPECT_EQ(d.action, CB_ACTION_WARN);
    EXPECT_TRUE(has_text(d.reason, "reconnect"));
}

TEST(SafetyDecide, WarnsNearTheThermalLimit) {
    sf::decision d = sf::decide(input(at(85)), {});
    EXPECT_EQ(d.action, CB_ACTION_WARN);
    EXPECT_TRUE(has_text(d.reason, "approaching the 90 °C thermal limit"));
    EXPECT_EQ(sf::decide(input(at(84.9)), {}).action, CB_ACTION_NONE);
}

TEST(SafetyDecide, WarnsAboveHalfTheErrorRateThreshold) {
    sf::decision d = sf::decide(input(with_error_rate(0.006)), {});
    EXPECT_EQ(d.action, CB_ACTION_WARN);
    EXPECT_TRUE(has_text(d.reason, "0.6%"));
    EXPECT_EQ(sf::decide(input(with_error_rate(0.004)), {}).action, CB_ACTION_NONE);
}

TEST(SafetyDecide, WarnsOnANewXidWithoutARule) {
    auto s = healthy_sample();
    s.last_xid = 999;
    const sf::decision d = sf::decide(input(s), {});
    EXPECT_EQ(d.action, CB_ACTION_WARN);
    EXPECT_TRUE(has_text(d.reason, "Xid 999"));
}

TEST(SafetyDecide, ReasonsFitTheAbiBuffer) {
    auto s = link_down();
    s.last_xid = 119;
    s.device_lost = 1;
    s.heartbeat_age_ms = UINT64_MAX;
    s.oldest_pending_ms = UINT64_MAX;
    s.stalled_ms = UINT64_MAX - 1;
    s.integrity_failure = 1;
    s.ecc_uncorrected = UINT64_MAX;
    s.error_rate = 1;
    sf::parameters p;
    p.max_retry_count = 100;
    for (uint32_t attempts : {0u, 1u, 99u, 100u}) {
        const sf::decision d = sf::decide(input(s, attempts), p);
        EXPECT_LT(d.reason.size(), 256u) << d.reason;
    }
}

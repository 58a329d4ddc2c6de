// Fault classification: each fault class enters at its own rung; Xids map to theirs.
#include "has_text.hpp"
#include "health_samples.hpp"
#include "policy/classify.hpp"

#include <gtest/gtest.h>

namespace sf = cudabridge::plugins::safety;
using cudabridge::test::has_text;
using cudabridge::test::healthy_sample;

namespace {

// The input with `current` after one healthy sample.
sf::health_input after_healthy(const cb_health_sample& current) {
    sf::health_input in;
    in.previous = healthy_sample();
    in.current = current;
    return in;
}

std::vector<sf::fault> faults_of(const cb_health_sample& current, const sf::parameters& p = {}) {
    return sf::classify(after_healthy(current), p);
}

// The single fault a sample shows (fails the test when there is not exactly one).
sf::fault only_fault(const cb_health_sample& current, const sf::parameters& p = {}) {
    auto f = faults_of(current, p);
    EXPECT_EQ(f.size(), 1u);
    return f.empty() ? sf::fault{CB_ACTION_NONE, ""} : f.front();
}

}  // namespace

TEST(SafetyClassify, AHealthySampleHasNoFault) { EXPECT_TRUE(faults_of(healthy_sample()).empty()); }

TEST(SafetyClassify, LinkDownEntersAtReconnect) {
    auto s = healthy_sample();
    s.link_up = 0;
    s.device_lost = 1;  // a gone device on a dead link is the link fault, not a second one
    const sf::fault f = only_fault(s);
    EXPECT_EQ(f.entry, CB_ACTION_RECONNECT);
    EXPECT_TRUE(has_text(f.what, "link down"));
}

TEST(SafetyClassify, DeviceLostOnALiveLinkEntersAtHardReset) {
    auto s = healthy_sample();
    s.device_lost = 1;
    EXPECT_EQ(only_fault(s).entry, CB_ACTION_HARD_RESET);
}

TEST(SafetyClassify, HeartbeatTimeoutEntersAtHardReset) {
    auto s = healthy_sample();
    s.heartbeat_age_ms = 5000;  // at the timeout: not yet
    EXPECT_TRUE(faults_of(s).empty());
    s.heartbeat_age_ms = 5001;
    const sf::fault f = only_fault(s);
    EXPECT_EQ(f.entry, CB_ACTION_HARD_RESET);
    EXPECT_TRUE(has_text(f.what, "5001 ms"));
    EXPECT_TRUE(has_text(f.what, "5000 ms"));
    sf::parameters p;
    p.heartbeat_timeout_ms = 1000;
    s.heartbeat_age_ms = 1500;
    EXPECT_EQ(only_fault(s, p).entry, CB_ACTION_HARD_RESET);
}

TEST(SafetyClassify, HungEngineEntersAtHardReset) {
    auto s = healthy_sample();
    s.oldest_pending_ms = 6000;
    s.stalled_ms = 6000;
    const sf::fault f = only_fault(s);
    EXPECT_EQ(f.entry, CB_ACTION_HARD_RESET);
    EXPECT_TRUE(has_text(f.what, "no progress for 6000 ms"));
    s.stalled_ms = 4000;  // still, but not for the timeout yet
    EXPECT_TRUE(faults_of(s).empty());
}

TEST(SafetyClassify, ADeepQueueThatKeepsMovingIsNotAHang) {
    // An hour of queued work the device keeps retiring: busy, healthy.
    auto s = healthy_sample();
    s.oldest_pending_ms = 3600 * 1000;
    s.stalled_ms = 900;
    EXPECT_TRUE(faults_of(s).empty());
}

TEST(SafetyClassify, PendingAgeAloneIsNotJudged) {
    // A family that cannot tell progress (UINT64_MAX), or a host older than ABI 1.13 (no
    // stalled_ms at all): old work alone is no evidence of a hang.
    auto s = healthy_sample();
    s.oldest_pending_ms = 60000;
    s.stalled_ms = UINT64_MAX;
    EXPECT_TRUE(faults_of(s).empty());
    s.stalled_ms = 60000;
    s.struct_size = offsetof(cb_health_sample, stalled_ms);
    EXPECT_TRUE(faults_of(s).empty());
}

TEST(SafetyClassify, AKernelThatRunsOnIsNotJudgedWithoutATimeLimit) {
    // A compute GPU has no kernel time limit: a day-long kernel that keeps moving is healthy.
    auto s = healthy_sample();
    s.oldest_pending_ms = 86400 * 1000;
    s.kernel_running_ms = 86400 * 1000;
    EXPECT_TRUE(faults_of(s).empty());
}

TEST(SafetyClassify, AKernelPastTheTimeLimitGetsASoftReset) {
    sf::parameters p;
    p.kernel_time_limit_ms = 2000;
    auto s = healthy_sample();
    s.oldest_pending_ms = 2500;
    s.kernel_running_ms = 2500;
    const sf::fault f = only_fault(s, p);
    EXPECT_EQ(f.entry, CB_ACTION_SOFT_RESET);
    EXPECT_TRUE(has_text(f.what, "run for 2500 ms")) << f.what;
    EXPECT_TRUE(has_text(f.what, "2000 ms")) << f.what;
    s.kernel_running_ms = 2000;  // at the limit, not past it
    EXPECT_TRUE(faults_of(s, p).empty());
}

TEST(SafetyClassify, AKernelTimeLimitJudgesOnlyWhatTheFamilyCanTell) {
    sf::parameters p;
    p.kernel_time_limit_ms = 1000;
    auto s = healthy_sample();
    s.kernel_running_ms = UINT64_MAX;  // the family cannot tell
    EXPECT_TRUE(faults_of(s, p).empty());
    s.kernel_running_ms = 60000;  // a host older than ABI 1.16 sends no such field
    s.struct_size = offsetof(cb_health_sample, kernel_running_ms);
    EXPECT_TRUE(faults_of(s, p).empty());
}

TEST(SafetyClassify, DmaMappingsTheIommuRefusedEnterAtHardReset) {
    auto s = healthy_sample();
    s.dma_map_refusals = 3;
    const sf::fault f = only_fault(s);
    EXPECT_EQ(f.entry, CB_ACTION_HARD_RESET);
    EXPECT_TRUE(has_text(f.what, "3 DMA mappings refused by the IOMMU"));
}

TEST(SafetyClassify, IntegrityFailureEntersAtHardReset) {
    auto s = healthy_sample();
    s.integrity_failure = 1;
    EXPECT_EQ(only_fault(s).entry, CB_ACTION_HARD_RESET);
}

TEST(SafetyClassify, NewUncorrectedEccErrorsEnterAtHardReset) {
    auto s = healthy_sample();
    s.ecc_uncorrected = 2;
    const sf::fault f = only_fault(s);
    EXPECT_EQ(f.entry, CB_ACTION_HARD_RESET);
    EXPECT_TRUE(has_text(f.what, "2 new uncorrected ECC errors"));

    // Unchanged since the previous sample: old news, no fault.
    sf::health_input in = after_healthy(s);
    in.previous->ecc_uncorrected = 2;
    EXPECT_TRUE(sf::classify(in, {}).empty());
    // The first sample is a baseline.
    in.previous.reset();
    EXPECT_TRUE(sf::classify(in, {}).empty());
}

TEST(SafetyClassify, ErrorRateOverTheThresholdEntersAtSoftReset) {
    auto s = healthy_sample();
    s.error_rate = 0.01;  // at the threshold: not over
    EXPECT_TRUE(faults_of(s).empty());
    s.error_rate = 0.021;
    const sf::fault f = only_fault(s);
    EXPECT_EQ(f.entry, CB_ACTION_SOFT_RESET);
    EXPECT_EQ(f.what, "error rate 2.1% over the 1.0% threshold");
}

struct xid_case {
    uint32_t xid;
    cb_safety_action entry;
};

class SafetyXid : public ::testing::TestWithParam<xid_case> {};

TEST_P(SafetyXid, ANewXidEntersAtItsRung) {
    const xid_case c = GetParam();
    EXPECT_EQ(sf::xid_entry_rung(c.xid), c.entry);
    auto s = healthy_sample();
    s.last_xid = c.xid;
    const sf::fault f = only_fault(s);
    EXPECT_EQ(f.entry, c.entry);
    EXPECT_TRUE(has_text(f.what, "Xid " + std::to_string(c.xid)));
}

INSTANTIATE_TEST_SUITE_P(Catalog, SafetyXid,
                         ::testing::Values(xid_case{79, CB_ACTION_RECONNECT}, xid_case{48, CB_ACTION_HARD_RESET},
                                           xid_case{95, CB_ACTION_HARD_RESET}, xid_case{119, CB_ACTION_HARD_RESET},
                                           xid_case{120, CB_ACTION_HARD_RESET}, xid_case{8, CB_ACTION_SOFT_RESET},
                                           xid_case{11, CB_ACTION_SOFT_RESET}, xid_case{13, CB_ACTION_SOFT_RESET},
                                           xid_case{31, CB_ACTION_SOFT_RESET}, xid_case{43, CB_ACTION_SOFT_RESET}),
                         [](const auto& param_info) { return "xid" + std::to_string(param_info.param.xid); });

TEST(SafetyClassify, AnXidCountsOnlyWhenItChanged) {
    auto s = healthy_sample();
    s.last_xid = 79;
    sf::health_input in = after_healthy(s);
    in.previous->last_xid = 79;  // already acted on
    EXPECT_TRUE(sf::classify(in, {}).empty());
    EXPECT_EQ(sf::new_xid(in), 0u);
    in.previous.reset();  // first sample: may predate the connection
    EXPECT_TRUE(sf::classify(in, {}).empty());
    in = after_healthy(s);
    in.previous->last_xid = 13;  // a different one: new
    EXPECT_EQ(sf::new_xid(in), 79u);
}

TEST(SafetyClassify, AnUnknownXidIsNoFault) {
    auto s = healthy_sample();
    s.last_xid = 999;
    EXPECT_TRUE(faults_of(s).empty());
    EXPECT_EQ(sf::xid_entry_rung(999), CB_ACTION_NONE);
    EXPECT_EQ(sf::xid_meaning(999), nullptr);
}

TEST(SafetyClassify, SeveralFaultsHighestRungFirst) {
    auto s = healthy_sample();
    s.error_rate = 0.5;
    s.integrity_failure = 1;
    s.last_xid = 79;
    auto f = faults_of(s);
    ASSERT_EQ(f.size(), 3u);
    EXPECT_EQ(f[0].entry, CB_ACTION_RECONNECT);
    EXPECT_EQ(f[1].entry, CB_ACTION_HARD_RESET);
    EXPECT_EQ(f[2].entry, CB_ACTION_SOFT_RESET);
}

// The loaded plugin's C table: compatibility refusals, the decision rules end to end, ABI
// 1.0-sized records, and bad input (status plus a last-error message, never a crash).
#include "has_text.hpp"
#include "plugin_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <cstring>

namespace cudabridge::test {

namespace {

history after_healthy_with(void (*change)(cb_health_sample&), uint32_t attempts = 0) {
    auto s = healthy_sample();
    change(s);
    history h = history::after_healthy(s);
    h.recovery_attempts = attempts;
    return h;
}

void link_down(cb_health_sample& s) { s.link_up = 0; }
void high_error_rate(cb_health_sample& s) { s.error_rate = 0.021; }
void hung(cb_health_sample& s) {
    s.oldest_pending_ms = 60000;
    s.stalled_ms = 60000;
}
void lost(cb_health_sample& s) { s.device_lost = 1; }
void no_heartbeat(cb_health_sample& s) { s.heartbeat_age_ms = 9000; }
void corrupt(cb_health_sample& s) { s.integrity_failure = 1; }
void ecc(cb_health_sample& s) { s.ecc_uncorrected = 1; }
void xid79(cb_health_sample& s) { s.last_xid = 79; }
void xid48(cb_health_sample& s) { s.last_xid = 48; }
void xid13(cb_health_sample& s) { s.last_xid = 13; }
void hot(cb_health_sample& s) { s.temperature_c = 93; }

}  // namespace

// ---- compatibility --------------------------------------------------------------------------

TEST_F(safety_plugin_test, CompatibleAndEachRefusal) {
    create();
    cb_verdict v = check(nvidia_facts());
    EXPECT_EQ(v.compatible, 1) << v.reason;

    auto f = nvidia_facts();
    f.iommu_dma_protection = 0;
    v = check(f);
    EXPECT_EQ(v.compatible, 1);
    EXPECT_TRUE(has_text(v.reason, "no IOMMU DMA protection"));

    f = nvidia_facts();
    f.pci_vendor_id = 0x1002;
    v = check(f);
    EXPECT_EQ(v.compatible, 0);
    EXPECT_TRUE(has_text(v.reason, "0x1002"));

    f = nvidia_facts();
    f.pci_class_code = 0x020000;
    v = check(f);
    EXPECT_EQ(v.compatible, 0);
    EXPECT_TRUE(has_text(v.reason, "0x020000"));

    f = nvidia_facts();
    f.security_level = CB_SECURITY_DPONLY;
    v = check(f);
    EXPECT_EQ(v.compatible, 0);
    EXPECT_TRUE(has_text(v.reason, "dponly"));

    f = nvidia_facts();
    f.link_bandwidth_gbs = 1.25;
    v = check(f);
    EXPECT_EQ(v.compatible, 0);
    EXPECT_TRUE(has_text(v.reason, "1.25 GB/s"));
    EXPECT_TRUE(has_text(v.reason, "2.00 GB/s"));

    f = nvidia_facts();
    f.enclosure_power_w = 300;
    v = check(f);
    EXPECT_EQ(v.compatible, 0);
    EXPECT_TRUE(has_text(v.reason, "300 W"));
    EXPECT_TRUE(has_text(v.reason, "575 W"));
}

TEST_F(safety_plugin_test, TheLinkFloorParameterApplies) {
    core::set_setting(*database, "global", "standard.min_link_bandwidth_gbs", "5");
    create();
    const cb_verdict v = check(nvidia_facts());
    EXPECT_EQ(v.compatible, 0);
    EXPECT_TRUE(has_text(v.reason, "5.00 GB/s"));
}

// ---- decisions ------------------------------------------------------------------------------

TEST_F(safety_plugin_test, HealthyIsNone) {
    create();
    const cb_safety_decision d = evaluate(history::after_healthy(healthy_sample()));
    EXPECT_EQ(d.action, CB_ACTION_NONE);
    EXPECT_EQ(d.struct_size, sizeof d);
    EXPECT_TRUE(has_text(d.reason, "healthy"));
}

TEST_F(safety_plugin_test, EachFaultClassEntersAtItsRung) {
    create();
    const std::pair<void (*)(cb_health_sample&), cb_safety_action> cases[] = {
        {link_down, CB_ACTION_RECONNECT},     {xid79, CB_ACTION_RECONNECT},  {lost, CB_ACTION_HARD_RESET},
        {no_heartbeat, CB_ACTION_HARD_RESET}, {hung, CB_ACTION_HARD_RESET},  {corrupt, CB_ACTION_HARD_RESET},
        {ecc, CB_ACTION_HARD_RESET},          {xid48, CB_ACTION_HARD_RESET}, {high_error_rate, CB_ACTION_SOFT_RESET},
        {xid13, CB_ACTION_SOFT_RESET},
    };
    for (const auto& [change, rung] : cases) {
        const cb_safety_decision d = evaluate(after_healthy_with(change));
        EXPECT_EQ(d.action, rung) << d.reason;
        EXPECT_EQ(d.delay_ms, 0u);
        EXPECT_TRUE(has_text(d.reason, "attempt 1 of 3"));
    }
}

TEST_F(safety_plugin_test, AttemptsClimbThenMarkFailed) {
    create();
    EXPECT_EQ(evaluate(after_healthy_with(high_error_rate, 0)).action, CB_ACTION_SOFT_RESET);
    cb_safety_decision d = evaluate(after_healthy_with(high_error_rate, 1));
    EXPECT_EQ(d.action, CB_ACTION_HARD_RESET);
    EXPECT_EQ(d.delay_ms, 500u);
    d = evaluate(after_healthy_with(high_error_rate, 2));
    EXPECT_EQ(d.action, CB_ACTION_RECONNECT);
    EXPECT_EQ(d.delay_ms, 500u);
    d = evaluate(after_healthy_with(high_error_rate, 3));
    EXPECT_EQ(d.action, CB_ACTION_MARK_FAILED);
    EXPECT_TRUE(has_text(d.reason, "manual reset"));

    history failed = history::after_healthy(healthy_sample());
    failed.failed = true;
    failed.recovery_attempts = 3;
    EXPECT_EQ(evaluate(failed).action, CB_ACTION_MARK_FAILED);
}

TEST_F(safety_plugin_test, EmergencyStopAndResume) {
    create();
    EXPECT_EQ(evaluate(after_healthy_with(hot)).action, CB_ACTION_EMERGENCY_STOP);
    auto s = healthy_sample();
    s.temperature_c = 86;
    history h = history::after_healthy(s);
    h.emergency_stopped = true;
    cb_safety_decision d = evaluate(h);
    EXPECT_EQ(d.action, CB_ACTION_NONE);
    EXPECT_TRUE(has_text(d.reason, "cooling"));
    h.samples.back().temperature_c = 80;
    EXPECT_EQ(evaluate(h).action, CB_ACTION_RESUME);
}

TEST_F(safety_plugin_test, AutoRecoveryOffWarnsButStillStopsWhenHot) {
    create("standard", {{"enable_auto_recovery", "0"}});
    const cb_safety_decision d = evaluate(after_healthy_with(link_down));
    EXPECT_EQ(d.action, CB_ACTION_WARN);
    EXPECT_TRUE(has_text(d.reason, "reconnect"));
    EXPECT_EQ(evaluate(after_healthy_with(hot)).action, CB_ACTION_EMERGENCY_STOP);
}

// ---- ABI 1.0 records ------------------------------------------------------------------------

TEST_F(safety_plugin_test, VersionOneRecordsWork) {
    create();
    // A 1.0 host: 88-byte samples, 32-byte history; new uncorrected ECC errors in the last one.
    history h = after_healthy_with(ecc);
    h.samples.insert(h.samples.begin(), healthy_sample());
    const v10_history old(h);
    const cb_safety_decision d = evaluate(old.view());
    EXPECT_EQ(d.action, CB_ACTION_HARD_RESET) << d.reason;

    // The 1.3 fields of the records are not read: a stop in force is unknown to a 1.0 host.
    const v10_history healthy_old(history::after_healthy(healthy_sample()));
    EXPECT_EQ(evaluate(healthy_old.view()).action, CB_ACTION_NONE);
}

// ---- bad input ------------------------------------------------------------------------------

class safety_plugin_bad_input : public safety_plugin_test {
protected:
    void SetUp() override {
        safety_plugin_test::SetUp();
        create();
        core::set_last_error("");
    }
    // Expects CB_ERR_INVALID_ARGUMENT with a last-error message containing `text`.
    void expect_refused(cb_status st, const char* text) {
        EXPECT_EQ(st, CB_ERR_INVALID_ARGUMENT);
        EXPECT_TRUE(has_text(core::last_error(), text));
        core::set_last_error("");
    }
};

TEST_F(safety_plugin_bad_input, NullPointers) {
    const cb_device_facts facts = nvidia_facts();
    cb_verdict v{};
    v.struct_size = sizeof v;
    expect_refused(table()->check_compatibility(instance(), nullptr, &v), "facts is NULL");
    expect_refused(table()->check_compatibility(instance(), &facts, nullptr), "NULL");
    const history h = history::after_healthy(healthy_sample());
    const cb_health_history view = h.view();
    cb_safety_decision d{};
    d.struct_size = sizeof d;
    expect_refused(table()->evaluate(instance(), nullptr, &d), "history is NULL");
    expect_refused(table()->evaluate(instance(), &view, nullptr), "NULL");
    EXPECT_EQ(table()->evaluate(nullptr, &view, &d), CB_ERR_INVALID_ARGUMENT);
    cb_health_history no_samples = view;
    no_samples.samples = nullptr;
    expect_refused(table()->evaluate(instance(), &no_samples, &d), "NULL");
}

TEST_F(safety_plugin_bad_input, RecordsSmallerThanVersionOne) {
    cb_device_facts facts = nvidia_facts();
    facts.struct_size = 8;
    cb_verdict v{};
    v.struct_size = sizeof v;
    expect_refused(table()->check_compatibility(instance(), &facts, &v), "struct_size 8");

    history h = history::after_healthy(healthy_sample());
    cb_health_history view = h.view();
    view.struct_size = 16;
    cb_safety_decision d{};
    d.struct_size = sizeof d;
    expect_refused(table()->evaluate(instance(), &view, &d), "struct_size 16");

    h.samples.back().struct_size = 24;
    view = h.view();
    expect_refused(table()->evaluate(instance(), &view, &d), "struct_size 24");

    const history good = history::after_healthy(healthy_sample());
    view = good.view();
    view.sample_count = 0;
    expect_refused(table()->evaluate(instance(), &view, &d), "count 0");

    view = good.view();
    d.struct_size = 12;  // cannot hold the decision
    expect_refused(table()->evaluate(instance(), &view, &d), "struct_size 12");
}

TEST_F(safety_plugin_bad_input, AZeroOutputSizeMeansTheWholeRecord) {
    const history h = history::after_healthy(healthy_sample());
    const cb_health_history view = h.view();
    cb_safety_decision d{};
    std::memset(d.reason, 'x', sizeof d.reason);
    ASSERT_EQ(table()->evaluate(instance(), &view, &d), CB_OK) << core::last_error();
    EXPECT_EQ(d.struct_size, sizeof d);
    EXPECT_LT(std::strlen(d.reason), sizeof d.reason);
}

}  // namespace cudabridge::test

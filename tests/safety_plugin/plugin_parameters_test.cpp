// The loaded plugin's parameters: declared in the store with help, type, range and default, and
// read back through the host (stored setting > default; instance config > setting).
#include "has_text.hpp"
#include "plugin_fixture.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/parameters.hpp>

#include <map>

namespace cudabridge::test {

namespace {

std::map<std::string, core::parameter_row> parameters_of(core::store& s, const std::string& owner) {
    std::map<std::string, core::parameter_row> m;
    for (const auto& p : core::list_parameters(s))
        if (p.owner == owner) m[p.name] = p;
    return m;
}

history at(double temperature_c) {
    auto s = healthy_sample();
    s.temperature_c = temperature_c;
    return history::after_healthy(s);
}

}  // namespace

TEST_F(safety_plugin_test, BothPoliciesAreListedAsSafetyPlugins) {
    for (const char* name : {"standard", "strict"}) {
        auto info = reg->find(CB_KIND_SAFETY, name);
        ASSERT_TRUE(info) << name;
        EXPECT_FALSE(info->description.empty());
        EXPECT_EQ(info->license, "MIT");
    }
}

TEST_F(safety_plugin_test, TheLibraryPassesEveryLoaderCheck) {
    const auto report = core::verify_plugin_file(std::string(CB_TEST_PLUGIN_DIR) + "/libcudabridge_safety.so");
    EXPECT_TRUE(report.ok) << report.reason;
    EXPECT_EQ(report.plugins.size(), 2u);
}

TEST_F(safety_plugin_test, DeclaresEveryParameterWithHelpAndDefault) {
    create();
    const auto params = parameters_of(*database, "standard");
    const std::map<std::string, std::pair<int, std::string>> expected = {
        {"standard.max_retry_count", {CB_PARAM_INT, "3"}},
        {"standard.retry_delay_ms", {CB_PARAM_INT, "500"}},
        {"standard.heartbeat_interval_ms", {CB_PARAM_INT, "1000"}},
        {"standard.heartbeat_timeout_ms", {CB_PARAM_INT, "5000"}},
        {"standard.error_rate_threshold", {CB_PARAM_DOUBLE, "0.01"}},
        {"standard.thermal_limit", {CB_PARAM_DOUBLE, "90"}},
        {"standard.enable_auto_recovery", {CB_PARAM_BOOL, "1"}},
        {"standard.enable_data_integrity", {CB_PARAM_BOOL, "1"}},
        {"standard.thermal_hysteresis_c", {CB_PARAM_DOUBLE, "5"}},
        {"standard.min_link_bandwidth_gbs", {CB_PARAM_DOUBLE, "0"}},
        {"standard.kernel_time_limit_ms", {CB_PARAM_INT, "0"}},
    };
    ASSERT_EQ(params.size(), expected.size());
    for (const auto& [name, want] : expected) {
        SCOPED_TRACE(name);
        auto it = params.find(name);
        ASSERT_NE(it, params.end());
        EXPECT_EQ(it->second.type, want.first);
        EXPECT_EQ(it->second.default_value, want.second);
        EXPECT_FALSE(it->second.help.empty());
        EXPECT_EQ(it->second.has_range, want.first != CB_PARAM_BOOL);
    }
    auto p = core::find_parameter(*database, "standard.thermal_limit");
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(p->min_value, 20);
    EXPECT_DOUBLE_EQ(p->max_value, 120);
    // The host reads these from the store itself.
    EXPECT_EQ(core::effective_value(*database, "standard.heartbeat_timeout_ms"), "5000");
}

TEST_F(safety_plugin_test, AStoredSettingOverridesTheDefault) {
    create();
    EXPECT_EQ(evaluate(at(75)).action, CB_ACTION_NONE);
    core::set_setting(*database, "global", "standard.thermal_limit", "70");
    create();  // read at create
    const cb_safety_decision d = evaluate(at(75));
    EXPECT_EQ(d.action, CB_ACTION_EMERGENCY_STOP);
    EXPECT_TRUE(has_text(d.reason, "70 °C"));
    EXPECT_EQ(evaluate(at(66)).action, CB_ACTION_WARN);  // within the 5 °C hysteresis
}

TEST_F(safety_plugin_test, InstanceConfigOverridesTheSetting) {
    core::set_setting(*database, "global", "standard.max_retry_count", "5");
    create("standard", {{"max_retry_count", "1"}});
    auto s = healthy_sample();
    s.link_up = 0;
    history h = history::after_healthy(s);
    h.recovery_attempts = 1;
    EXPECT_EQ(evaluate(h).action, CB_ACTION_MARK_FAILED);
}

TEST_F(safety_plugin_test, AnInvalidStoredValueFailsCreationNamingIt) {
    core::set_setting(*database, "global", "standard.thermal_limit", "hot");
    try {
        create();
        FAIL() << "created with thermal_limit 'hot'";
    } catch (const core::error& e) {
        EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
        EXPECT_TRUE(has_text(e.what(), "standard.thermal_limit"));
        EXPECT_TRUE(has_text(e.what(), "hot"));
    }
}

TEST_F(safety_plugin_test, StrictDeclaresItsOwnTighterParameters) {
    create("strict");
    const auto params = parameters_of(*database, "strict");
    EXPECT_EQ(params.size(), 11u);
    EXPECT_EQ(params.at("strict.max_retry_count").default_value, "1");
    EXPECT_EQ(params.at("strict.thermal_limit").default_value, "83");
    EXPECT_EQ(params.at("strict.error_rate_threshold").default_value, "0.001");
    EXPECT_EQ(evaluate(at(84)).action, CB_ACTION_EMERGENCY_STOP);
    auto s = healthy_sample();
    s.error_rate = 0.002;
    EXPECT_EQ(evaluate(history::after_healthy(s)).action, CB_ACTION_SOFT_RESET);
}

}  // namespace cudabridge::test

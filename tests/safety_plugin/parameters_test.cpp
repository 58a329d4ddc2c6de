// The parameter table: names, defaults as the host stores them, ranges, help, and parsing.
#include "policy/parameters.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace sf = cudabridge::plugins::safety;

namespace {

const sf::parameter_spec& spec(const std::string& name) {
    for (const auto& s : sf::parameter_specs())
        if (name == s.name) return s;
    throw std::runtime_error("no parameter " + name);
}

std::map<std::string, std::string> defaults_text(const sf::parameters& p) {
    std::map<std::string, std::string> m;
    for (const auto& s : sf::parameter_specs()) m[s.name] = sf::default_text(s, p);
    return m;
}

}  // namespace

TEST(SafetyParameters, StandardDefaultsAreTheSeedsPlusTwo) {
    const std::map<std::string, std::string> expected = {
        {"max_retry_count", "3"},         {"retry_delay_ms", "500"},        {"heartbeat_interval_ms", "1000"},
        {"heartbeat_timeout_ms", "5000"}, {"error_rate_threshold", "0.01"}, {"thermal_limit", "90"},
        {"enable_auto_recovery", "1"},    {"enable_data_integrity", "1"},   {"thermal_hysteresis_c", "5"},
        {"min_link_bandwidth_gbs", "0"},  {"kernel_time_limit_ms", "0"}};
    EXPECT_EQ(defaults_text(sf::standard_defaults()), expected);
}

TEST(SafetyParameters, StrictDefaultsAreTighter) {
    auto m = defaults_text(sf::strict_defaults());
    EXPECT_EQ(m["max_retry_count"], "1");
    EXPECT_EQ(m["thermal_limit"], "83");
    EXPECT_EQ(m["error_rate_threshold"], "0.001");
    EXPECT_EQ(m["retry_delay_ms"], "500");
}

TEST(SafetyParameters, TypesHelpAndRangesHoldTheDefaults) {
    const sf::parameters d = sf::standard_defaults();
    for (const auto& s : sf::parameter_specs()) {
        SCOPED_TRACE(s.name);
        EXPECT_GT(std::string(s.help).size(), 20u);
        EXPECT_LE(s.min_value, s.get(d));
        EXPECT_GE(s.max_value, s.get(d));
    }
    EXPECT_EQ(spec("max_retry_count").type, CB_PARAM_INT);
    EXPECT_EQ(spec("thermal_limit").type, CB_PARAM_DOUBLE);
    EXPECT_EQ(spec("error_rate_threshold").type, CB_PARAM_DOUBLE);
    EXPECT_EQ(spec("enable_auto_recovery").type, CB_PARAM_BOOL);
    EXPECT_EQ(spec("enable_data_integrity").type, CB_PARAM_BOOL);
}

TEST(SafetyParameters, AssignParsesEachType) {
    sf::parameters p;
    EXPECT_FALSE(sf::assign_parameter(p, spec("thermal_limit"), "70.5"));
    EXPECT_DOUBLE_EQ(p.thermal_limit_c, 70.5);
    EXPECT_FALSE(sf::assign_parameter(p, spec("max_retry_count"), "7"));
    EXPECT_EQ(p.max_retry_count, 7u);
    EXPECT_FALSE(sf::assign_parameter(p, spec("enable_auto_recovery"), "off"));
    EXPECT_FALSE(p.enable_auto_recovery);
    EXPECT_FALSE(sf::assign_parameter(p, spec("enable_auto_recovery"), "yes"));
    EXPECT_TRUE(p.enable_auto_recovery);
    EXPECT_FALSE(sf::assign_parameter(p, spec("error_rate_threshold"), "0.25"));
    EXPECT_DOUBLE_EQ(p.error_rate_threshold, 0.25);
}

TEST(SafetyParameters, AssignRefusesBadTextAndLeavesTheValue) {
    sf::parameters p;
    auto why = sf::assign_parameter(p, spec("thermal_limit"), "hot");
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("'hot'"), std::string::npos);
    why = sf::assign_parameter(p, spec("thermal_limit"), "200");
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("outside"), std::string::npos);
    EXPECT_TRUE(sf::assign_parameter(p, spec("max_retry_count"), "2.5"));
    EXPECT_TRUE(sf::assign_parameter(p, spec("max_retry_count"), "-1"));
    EXPECT_TRUE(sf::assign_parameter(p, spec("max_retry_count"), ""));
    EXPECT_TRUE(sf::assign_parameter(p, spec("enable_auto_recovery"), "2"));
    EXPECT_TRUE(sf::assign_parameter(p, spec("error_rate_threshold"), "nan"));
    EXPECT_EQ(p.max_retry_count, 3u);
    EXPECT_DOUBLE_EQ(p.thermal_limit_c, 90);
    EXPECT_TRUE(p.enable_auto_recovery);
}

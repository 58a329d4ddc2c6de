// One reading of a boolean setting. The SDK's parse_bool is the only parser; every reader goes
// through it: the store's check of a value being set, a plugin's param_bool, the safety policy.
// They all take "1", "true", "yes", "on" and "0", "false", "no", "off" in any letter case, and
// refuse anything else naming the value and the words that are accepted.
#include "fake_host.hpp"
#include "policy/parameters.hpp"

#include <cudabridge/core/parameters.hpp>
#include <cudabridge/cpp/bool_text.hpp>
#include <cudabridge/cpp/host.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace sdk = cudabridge::sdk;
namespace core = cudabridge::core;
namespace sf = cudabridge::plugins::safety;

namespace {

// Each word as written, in upper case and capitalised, with the value it means.
std::vector<std::pair<std::string, bool>> every_spelling() {
    const std::vector<std::pair<std::string, bool>> words = {{"1", true},   {"true", true}, {"yes", true},
                                                             {"on", true},  {"0", false},   {"false", false},
                                                             {"no", false}, {"off", false}};
    std::vector<std::pair<std::string, bool>> out;
    for (const auto& [word, value] : words) {
        std::string upper = word, capitalised = word;
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        capitalised[0] = upper[0];
        for (const std::string& s : {word, upper, capitalised}) out.emplace_back(s, value);
    }
    return out;
}

const std::vector<std::string> not_booleans = {"",    "2",   "-1",  "maybe", "enabled", "y",    "n", "t",
                                               " on", "on ", "tru", "offf",  "o n",     "yes!", "10"};

core::parameter_row bool_parameter() {
    core::parameter_row p;
    p.name = "session.deauthorize_on_disconnect";
    p.owner = "host";
    p.type = CB_PARAM_BOOL;
    p.default_value = "0";
    return p;
}

const sf::parameter_spec& auto_recovery() {
    for (const auto& s : sf::parameter_specs())
        if (std::string(s.name) == "enable_auto_recovery") return s;
    throw std::runtime_error("the safety policy has no enable_auto_recovery");
}

}  // namespace

TEST(BoolText, TheEightWordsInAnyCaseMeanWhatTheySay) {
    for (const auto& [text, value] : every_spelling()) EXPECT_EQ(sdk::parse_bool(text), value) << text;
}

TEST(BoolText, AnythingElseIsNoBoolean) {
    for (const auto& text : not_booleans) EXPECT_EQ(sdk::parse_bool(text), std::nullopt) << "'" << text << "'";
}

TEST(BoolText, TheRefusalNamesTheValueAndTheAcceptedWords) {
    EXPECT_EQ(sdk::not_a_bool_message("maybe"), "'maybe' is not a boolean (use 1/0, true/false, yes/no, on/off)");
}

TEST(BoolText, TheStoreAcceptsTheSameWordsWhenASettingIsSet) {
    for (const auto& [text, value] : every_spelling())
        EXPECT_EQ(core::check_parameter_value(bool_parameter(), text), std::nullopt) << text;
    for (const auto& text : not_booleans)
        EXPECT_EQ(core::check_parameter_value(bool_parameter(), text), sdk::not_a_bool_message(text)) << text;
}

TEST(BoolText, APluginReadsTheSameWords) {
    cudabridge::test::fake_host fake;
    const sdk::host h(fake.services());
    for (const auto& [text, value] : every_spelling()) {
        fake.config["flag"] = text;
        EXPECT_EQ(h.param_bool("flag", !value), value) << text;
    }
    // The host refuses such a value when it is set; a plugin given one anyway keeps its default.
    for (const auto& text : not_booleans) {
        fake.config["flag"] = text;
        EXPECT_TRUE(h.param_bool("flag", true)) << text;
        EXPECT_FALSE(h.param_bool("flag", false)) << text;
    }
}

TEST(BoolText, TheSafetyPolicyReadsTheSameWords) {
    for (const auto& [text, value] : every_spelling()) {
        sf::parameters p;
        p.enable_auto_recovery = !value;
        EXPECT_EQ(sf::assign_parameter(p, auto_recovery(), text), std::nullopt) << text;
        EXPECT_EQ(p.enable_auto_recovery, value) << text;
    }
    for (const auto& text : not_booleans) {
        sf::parameters p;
        EXPECT_EQ(sf::assign_parameter(p, auto_recovery(), text), sdk::not_a_bool_message(text)) << text;
    }
}

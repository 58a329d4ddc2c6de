// `config show | clock | power | fan | pstate`: bounds from the profile, refusals that change
// nothing, and the history of each change with its old and new values.
#include "cli_fixture.hpp"

namespace cudabridge::test {
namespace {

class cli_settings_test : public cli_test {
protected:
    void SetUp() override { ASSERT_EQ(run({"connect"}).exit_code, 0); }
    void TearDown() override { run({"disconnect", "--force"}); }
    Poco::JSON::Object::Ptr show() {
        auto r = run({"config", "show", "--json"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return object(r.out);
    }
    size_t events(const std::string& kind) {
        auto r = run({"history", "--kind", kind, "--json"});
        return object(r.out)->getArray("events")->size();
    }
};

TEST_F(cli_settings_test, ShowGivesSettingsAndBounds) {
    auto o = show();
    EXPECT_EQ(o->getObject("power")->getValue<double>("default_w"), 575);
    EXPECT_EQ(o->getObject("power")->getValue<double>("limit_w"), 575);
    EXPECT_EQ(o->getObject("fan")->getValue<std::string>("mode"), "auto");
    EXPECT_FALSE(o->getObject("clocks")->getValue<bool>("locked"));
    auto range = o->getObject("pstate")->getObject("range");  // numbers, not "P0-P15"
    ASSERT_TRUE(range);
    EXPECT_EQ(range->getValue<int>("min"), 0);
    EXPECT_EQ(range->getValue<int>("max"), 15);
    auto r = run({"cf", "show"});
    EXPECT_NE(r.out.find("settable 270-719 W"), std::string::npos) << r.out;
    // info's settable clocks too: {"min": .., "max": ..} in JSON, "210-2991" in text.
    auto clocks = object(run({"info", "--json"}).out)->getArray("devices")->getObject(0)->getObject("clocks");
    auto sm = clocks->getObject("settable_sm_mhz");
    ASSERT_TRUE(sm) << "an object, not \"210-2991\"";
    EXPECT_LT(sm->getValue<int>("min"), sm->getValue<int>("max"));
    r = run({"info"});
    EXPECT_NE(r.out.find(std::to_string(sm->getValue<int>("min")) + "-" + std::to_string(sm->getValue<int>("max"))),
              std::string::npos)
        << r.out;
}

TEST_F(cli_settings_test, PowerWithinBoundsIsAppliedAndRecorded) {
    auto r = run({"config", "power", "350"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("575.0 W -> 350.0 W"), std::string::npos) << r.out;
    EXPECT_EQ(show()->getObject("power")->getValue<double>("limit_w"), 350);
    r = run({"history", "--kind", "config.power", "--json"});
    auto e = object(r.out)->getArray("events")->getObject(0);
    EXPECT_EQ(e->getObject("data")->getValue<double>("old"), 575);
    EXPECT_EQ(e->getObject("data")->getValue<double>("new"), 350);
}

TEST_F(cli_settings_test, OutOfRangeValuesAreRefusedAndNothingIsWritten) {
    expect_refused({
        {{"config", "power", "9000"}, 1, "outside 270-719 W"},
        {{"config", "power", "100"}, 1, "outside 270-719 W"},
        {{"config", "power", "lots"}, 2, "must be a number"},
        {{"config", "clock", "5000", "1200"}, 1, "GPU clock 5000 MHz is outside"},
        {{"config", "clock", "2100", "99999"}, 1, "memory clock 99999 MHz is outside"},
        {{"config", "clock", "2100"}, 2, "GPU_MHZ and MEM_MHZ"},
        {{"config", "clock", "-5", "1200"}, 2, "whole number"},
        {{"config", "fan", "101"}, 2, "0 to 100"},  // not a percent: a usage error, as P16 is
        {{"config", "fan", "fast"}, 2, "must be a number"},
        {{"config", "pstate", "P16"}, 2, "not a performance state"},
        {{"config", "pstate", "X3"}, 2, "not a performance state"},
        {{"config", "show", "extra"}, 2, "no arguments"},
    });
    auto o = show();
    EXPECT_EQ(o->getObject("power")->getValue<double>("limit_w"), 575);
    EXPECT_FALSE(o->getObject("clocks")->getValue<bool>("locked"));
    EXPECT_EQ(o->getObject("fan")->getValue<std::string>("mode"), "auto");
    EXPECT_EQ(events("config"), 0u);
}

TEST_F(cli_settings_test, ClockFanAndPstateRoundTrip) {
    ASSERT_EQ(run({"config", "clock", "2100", "1200"}).exit_code, 0);
    ASSERT_EQ(run({"config", "fan", "80"}).exit_code, 0);
    ASSERT_EQ(run({"config", "pstate", "P2"}).exit_code, 0);
    auto o = show();
    EXPECT_TRUE(o->getObject("clocks")->getValue<bool>("locked"));
    EXPECT_EQ(o->getObject("clocks")->getValue<int>("sm_mhz"), 2100);
    EXPECT_EQ(o->getObject("fan")->getValue<int>("percent"), 80);
    EXPECT_EQ(o->getObject("pstate")->getValue<std::string>("setting"), "P2");
    ASSERT_EQ(run({"config", "fan", "auto"}).exit_code, 0);
    ASSERT_EQ(run({"config", "clock", "reset"}).exit_code, 0);
    o = show();
    EXPECT_EQ(o->getObject("fan")->getValue<std::string>("mode"), "auto");
    EXPECT_FALSE(o->getObject("clocks")->getValue<bool>("locked"));
    EXPECT_EQ(events("config"), 5u);
    auto r = run({"config", "power", "400", "--json"});
    auto j = object(r.out);
    EXPECT_EQ(j->getValue<std::string>("setting"), "power");
    EXPECT_EQ(j->getValue<double>("new"), 400);
}

}  // namespace
}  // namespace cudabridge::test

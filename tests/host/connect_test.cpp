// The six-step connection sequence against the simulated fabric: success, every refusal, every
// step's failure, and that a failure leaves nothing half-open.
#include "host_fixture.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/store.hpp>
#include <cudabridge/host/runtime.hpp>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

#include <cstdlib>

namespace cudabridge::test {
namespace {

using host::connect_error;

Poco::JSON::Object::Ptr first_enclosure(Poco::JSON::Object::Ptr layout) {
    return layout->getArray("enclosures")->getObject(0);
}

// Nothing of a connection is left: the enclosure not authorized, no link open, no session open.
void expect_nothing_open(host::session& s, const std::string& enclosure) {
    for (const auto& d : host::detect(s)) {
        if (enclosure != d.enclosure.id) continue;
        EXPECT_EQ(d.enclosure.authorized, CB_AUTH_NONE) << "left authorized";
        EXPECT_FALSE(d.connected_elsewhere) << "shared state says connected";
    }
    const std::string links = host_test::control(s, R"({"op":"links"})");
    auto reply = Poco::JSON::Parser().parse(links).extract<Poco::JSON::Object::Ptr>();
    EXPECT_EQ(reply->getArray("links")->size(), 0u) << links;
    std::lock_guard lock(s.store_mutex());
    EXPECT_FALSE(core::open_session(s.db(), enclosure)) << "a session row is still open";
}

std::string failed_step(host::session& s, const host::connect_options& o = {}) {
    try {
        host::connect(s, o);
    } catch (const connect_error& e) {
        return e.step() + ": " + e.what();
    }
    return "connected";
}

TEST_F(host_test, ConnectsTheDefaultEgpuInSixSteps) {
    auto s = open_session();
    std::vector<std::string> seen;
    host::connect_options o;
    o.on_step = [&](const host::step_record& r) { seen.push_back(r.name); };
    auto d = host::connect(*s, o);
    const std::vector<std::string> six = {"detect", "compatibility", "authorization",
                                          "tunnel", "gpu_init",      "monitoring"};
    EXPECT_EQ(seen, six);
    ASSERT_EQ(d->connect_steps().size(), 6u);
    for (const auto& step : d->connect_steps()) {
        EXPECT_TRUE(step.ok) << step.name << ": " << step.detail;
        EXPECT_GT(step.duration_ns, 0u) << step.name;
        const auto recorded = events(*s, "connect." + step.name);
        ASSERT_EQ(recorded.size(), 1u) << step.name;
        EXPECT_NE(recorded[0].data_json.find("duration_ms"), std::string::npos);
    }
    EXPECT_EQ(d->state(), host::device_state::connected);
    EXPECT_FALSE(d->attached());
    EXPECT_NE(std::string(d->properties().name).find("RTX 5090"), std::string::npos) << d->properties().name;
    EXPECT_TRUE(d->properties().is_simulated);
    {
        std::lock_guard lock(s->store_mutex());
        auto row = core::open_session(s->db(), d->id());
        ASSERT_TRUE(row);
        EXPECT_EQ(row->id, d->session_id());
        auto known = core::find_known_device(s->db(), d->id());
        ASSERT_TRUE(known);
        EXPECT_GT(known->first_seen_ns, 0);
    }

    const auto report = d->disconnect({});
    std::vector<std::string> steps;
    for (const auto& r : report.steps) steps.push_back(r.name);
    EXPECT_EQ(steps, (std::vector<std::string>{"refuse", "drain", "free", "monitoring", "tunnel", "deauthorize"}));
    EXPECT_TRUE(report.drained);
    EXPECT_EQ(d->state(), host::device_state::disconnected);
    std::lock_guard lock(s->store_mutex());
    auto ended = core::find_session(s->db(), d->session_id());
    ASSERT_TRUE(ended);
    EXPECT_TRUE(ended->ended_ns.has_value());
    EXPECT_EQ(ended->state, "disconnected");
}

// session.deauthorize_on_disconnect reads like every boolean setting: "on" and "ON" mean yes.
TEST_F(host_test, TheDeauthorizeSettingReadsEveryBooleanWord) {
    auto s = open_session();
    for (const auto& [text, deauthorizes] : std::vector<std::pair<std::string, bool>>{
             {"on", true}, {"ON", true}, {"Yes", true}, {"1", true}, {"off", false}, {"No", false}}) {
        {
            std::lock_guard lock(s->store_mutex());
            core::set_setting(s->db(), "global", "session.deauthorize_on_disconnect", text);
        }
        auto d = host::connect(*s);
        const auto report = d->disconnect({});
        ASSERT_FALSE(report.steps.empty());
        const auto& last = report.steps.back();
        EXPECT_EQ(last.name, "deauthorize") << text;
        EXPECT_EQ(last.detail == "device deauthorized", deauthorizes) << text << ": " << last.detail;
    }
}

// CUDABRIDGE_AUTOCONNECT reads like every boolean setting too: "OFF" does not connect.
TEST_F(host_test, TheAutoconnectVariableReadsEveryBooleanWord) {
    auto o = runtime_options();
    o.session.use_environment = true;
    for (const auto& [text, connects] :
         std::vector<std::pair<std::string, bool>>{{"OFF", false}, {"no", false}, {"On", true}}) {
        ::setenv("CUDABRIDGE_AUTOCONNECT", text.c_str(), 1);
        host::runtime rt(o);
        EXPECT_EQ(rt.device_count(), connects ? 1 : 0) << text << ": " << rt.startup_error();
    }
    ::unsetenv("CUDABRIDGE_AUTOCONNECT");
}

TEST_F(host_test, NoEnclosureFailsAtDetect) {
    edit_layout([](auto layout) { layout->set("enclosures", Poco::JSON::Array()); });
    auto s = open_session();
    const std::string why = failed_step(*s);
    EXPECT_EQ(why.rfind("detect:", 0), 0u) << why;
    EXPECT_NE(why.find("no eGPU enclosure"), std::string::npos) << why;
}

TEST_F(host_test, RefusesANonNvidiaDevice) {
    edit_layout([](auto layout) {
        auto e = first_enclosure(layout);
        e->set("gpu_model", "");
        e->set("gpu_vendor_id", 0x1002);
        e->set("gpu_device_id", 0x744c);
    });
    auto s = open_session();
    const std::string enclosure = enclosure_id(*s);
    const std::string why = failed_step(*s);
    EXPECT_EQ(why.rfind("compatibility:", 0), 0u) << why;
    EXPECT_NE(why.find("1002"), std::string::npos) << why;
    expect_nothing_open(*s, enclosure);
}

TEST_F(host_test, RefusesALinkBelowTheProfilesMinimum) {
    // USB4 20G carries at most 2.5 GB/s; the RTX 5090's profile asks for PCIe 3.0 x4 (3.94).
    edit_layout([](auto layout) { first_enclosure(layout)->set("generation", "usb4-20"); });
    auto s = open_session();
    const std::string why = failed_step(*s);
    EXPECT_EQ(why.rfind("compatibility:", 0), 0u) << why;
    EXPECT_NE(why.find("3.94"), std::string::npos) << why;
    expect_nothing_open(*s, enclosure_id(*s));
}

TEST_F(host_test, RefusesAnEnclosureThatCannotPowerTheBoard) {
    edit_layout([](auto layout) { first_enclosure(layout)->set("power_budget_w", 300.0); });
    auto s = open_session();
    const std::string why = failed_step(*s);
    EXPECT_EQ(why.rfind("compatibility:", 0), 0u) << why;
    EXPECT_NE(why.find("575"), std::string::npos) << why;
    EXPECT_NE(why.find("300"), std::string::npos) << why;
    expect_nothing_open(*s, enclosure_id(*s));
}

TEST_F(host_test, AnEmptyEnclosureFailsAtTheTunnelAndIsDeauthorized) {
    // The enclosure says it holds an RTX 5090 but no GPU model sits in it: no PCI function.
    edit_layout([](auto layout) { first_enclosure(layout)->set("gpu_model", ""); });
    auto s = open_session();
    const std::string why = failed_step(*s);
    EXPECT_EQ(why.rfind("tunnel:", 0), 0u) << why;
    expect_nothing_open(*s, enclosure_id(*s));
}

TEST_F(host_test, AGpuThatDoesNotAnswerFailsAtInitAndRollsBack) {
    auto s = open_session();
    const std::string enclosure = enclosure_id(*s);
    host::connect_options o;
    o.on_step = [&](const host::step_record& r) {
        // Once the tunnel is up, the function hangs: MMIO reads return all ones.
        if (r.name == "tunnel") control(*s, R"({"op":"fault","id":")" + enclosure + R"(","stuck":true})");
    };
    const std::string why = failed_step(*s, o);
    EXPECT_EQ(why.rfind("gpu_init:", 0), 0u) << why;
    expect_nothing_open(*s, enclosure);
}

TEST_F(host_test, SecureDomainsEnrollOnceAndChallengeAfterwards) {
    edit_layout([](auto layout) { layout->getArray("domains")->getObject(0)->set("security", "secure"); });
    auto s = open_session();
    const std::string enclosure = enclosure_id(*s);
    std::string why = failed_step(*s);
    EXPECT_EQ(why.rfind("authorization:", 0), 0u) << why;
    EXPECT_NE(why.find("--enroll"), std::string::npos) << why;
    expect_nothing_open(*s, enclosure);

    host::connect_options enroll;
    enroll.enroll = true;
    auto d = host::connect(*s, enroll);
    {
        std::lock_guard lock(s->store_mutex());
        auto known = core::find_known_device(s->db(), enclosure);
        ASSERT_TRUE(known);
        EXPECT_EQ(known->key.size(), 32u);
        EXPECT_EQ(known->policy, "auto");
    }
    host::disconnect_options deauth;
    deauth.deauthorize = true;
    d->disconnect(deauth);
    d.reset();

    // The stored key passes the challenge ...
    d = host::connect(*s);
    d->disconnect(deauth);
    d.reset();
    // ... and a wrong one does not.
    {
        std::lock_guard lock(s->store_mutex());
        core::set_device_key(s->db(), enclosure, std::vector<uint8_t>(32, 0x5a));
    }
    why = failed_step(*s);
    EXPECT_EQ(why.rfind("authorization:", 0), 0u) << why;
    expect_nothing_open(*s, enclosure);
}

TEST_F(host_test, ASecondSessionAttachesToTheConnection) {
    auto first = open_session();
    auto owner = host::connect(*first);
    auto second = open_session();
    auto guest = host::connect(*second);
    EXPECT_TRUE(guest->attached());
    EXPECT_EQ(guest->session_id(), owner->session_id());
    EXPECT_EQ(guest->state(), host::device_state::connected);
    ASSERT_EQ(guest->connect_steps().size(), 2u);  // detect, attach
    EXPECT_EQ(guest->connect_steps()[1].name, "attach");
    guest.reset();  // detaching leaves the connection up
    EXPECT_EQ(owner->state(), host::device_state::connected);
    host::device::ticket t;
    EXPECT_EQ(owner->enter(t), CB_OK);
}

TEST_F(host_test, ADisconnectElsewhereIsDeviceLostHere) {
    auto first = open_session();
    auto owner = host::connect(*first);
    auto second = open_session();
    auto guest = host::connect(*second);
    owner->disconnect({});
    host::device::ticket t;
    EXPECT_EQ(guest->enter(t), CB_ERR_DEVICE_LOST);
    EXPECT_NE(core::last_error().find("another process"), std::string::npos) << core::last_error();
}

}  // namespace
}  // namespace cudabridge::test

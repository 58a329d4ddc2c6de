// `sim` manages the simulated fabric every process sees; `history` filters the event history.
#include "cli_fixture.hpp"

#include <chrono>
#include <thread>

namespace cudabridge::test {
namespace {

TEST_F(cli_test, SimListShowsTheDefaultFabric) {
    auto r = run({"sim", "list", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto o = object(r.out);
    EXPECT_EQ(o->getValue<std::string>("host"), "apple-silicon");
    auto e = o->getArray("enclosures");
    ASSERT_EQ(e->size(), 1u);
    EXPECT_EQ(e->getObject(0)->getValue<std::string>("gpu_model"), "rtx-5090");
    EXPECT_FALSE(e->getObject(0)->has("key"));  // never printed
    EXPECT_EQ(e->getObject(0)->getObject("fault")->size(), 0u) << "no fault posted: an empty object";
    ASSERT_EQ(run({"sim", "fault", "bit-errors", "1e-6"}).exit_code, 0);
    auto fault = object(run({"sim", "list", "--json"}).out)->getArray("enclosures")->getObject(0)->getObject("fault");
    ASSERT_TRUE(fault) << "the posted fault is an object, not JSON text";
    EXPECT_DOUBLE_EQ(fault->getValue<double>("bit_error_rate"), 1e-6);
    r = run({"sim", "list"});
    EXPECT_NE(r.out.find("rtx-5090"), std::string::npos);
}

TEST_F(cli_test, SimPlugUnplugRemoveAndReset) {
    auto r = run({"sim", "plug", "rtx-4090", "--link", "tb5", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(object(r.out)->getValue<int>("index"), 1);
    r = run({"devices", "--json"});
    auto d = object(r.out)->getArray("devices");
    ASSERT_EQ(d->size(), 2u);
    EXPECT_EQ(d->getObject(1)->getValue<std::string>("generation"), "tb5");
    EXPECT_EQ(d->getObject(1)->getValue<std::string>("advertised_gpu"), "0x10de:2684");
    ASSERT_EQ(run({"sim", "unplug", "1"}).exit_code, 0);
    r = run({"devices", "--json"});
    EXPECT_EQ(object(r.out)->getArray("devices")->size(), 1u);  // unplugged: the transport no longer sees it
    r = run({"sim", "list", "--json"});
    EXPECT_FALSE(object(r.out)->getArray("enclosures")->getObject(1)->getValue<bool>("plugged"));
    ASSERT_EQ(run({"sim", "plug", "1"}).exit_code, 0);
    r = run({"devices", "--json"});
    EXPECT_EQ(object(r.out)->getArray("devices")->size(), 2u);
    ASSERT_EQ(run({"sim", "remove", "1"}).exit_code, 0);
    r = run({"sim", "list", "--json"});
    EXPECT_EQ(object(r.out)->getArray("enclosures")->size(), 1u);
    ASSERT_EQ(run({"sim", "host", "x86"}).exit_code, 0);
    r = run({"sim", "list", "--json"});
    EXPECT_EQ(object(r.out)->getValue<std::string>("host"), "x86");
    ASSERT_EQ(run({"sim", "reset"}).exit_code, 0);
    r = run({"sim", "list", "--json"});
    EXPECT_EQ(object(r.out)->getValue<std::string>("host"), "apple-silicon");
    r = run({"history", "--kind", "sim", "--json"});
    EXPECT_GE(object(r.out)->getArray("events")->size(), 4u);
}

TEST_F(cli_test, SimRefusesBadArguments) {
    expect_refused({
        {{"sim"}, 2, "missing subcommand"},
        {{"sim", "frob"}, 2, "unknown subcommand"},
        {{"sim", "plug"}, 2, "needs a MODEL"},
        {{"sim", "plug", "rtx-9999"}, 1, "no GPU profile 'rtx-9999'"},
        {{"sim", "plug", "rtx-4090", "--link", "tb9"}, 2, "unknown link 'tb9'"},
        {{"sim", "plug", "rtx-4090", "--security", "maybe"}, 2, "--security"},
        {{"sim", "unplug", "7"}, 3, "no simulated enclosure '7'"},
        {{"sim", "fault"}, 2, "needs a KIND"},
        {{"sim", "fault", "bit-errors"}, 2, "needs RATE"},
        {{"sim", "fault", "bit-errors", "-1"}, 2, "0 or more"},
        {{"sim", "fault", "stuck", "maybe"}, 2, "on or off"},
        {{"sim", "fault", "meteor"}, 2, "unknown fault 'meteor'"},
        {{"sim", "host", "arm"}, 2, "apple-silicon or x86"},
        // The second reliability round: bad input that reached the control channel or the store.
        {{"sim", "fault", "bit-errors", "nan"}, 2, "0 or more"},
        {{"sim", "fault", "link-drop", "nan"}, 2, "0 or more"},
        {{"sim", "fault", "unplug-after", "inf"}, 2, "0 or more"},
        {{"sim", "fault", "stuck", "on", "extra"}, 2, "not 'extra' after it"},
        {{"sim", "plug", "rtx-4090", "--name", std::string(70000, 'B')}, 2, "--name must be 1 to 96 bytes"},
        {{"sim", "plug", "rtx-4090", "--name", "a\x1b]0;T\x07"}, 2, "control characters"},
        {{"disconnect", "--timeout", "-1"}, 2, "--timeout must be 0 to 3600000"},
    });
    // None of them changed the fabric: it lists and resets as before.
    EXPECT_EQ(run({"sim", "list"}).exit_code, 0);
    EXPECT_EQ(run({"sim", "reset"}).exit_code, 0);
}

TEST_F(cli_test, TheStoreOptionRefusesAFolderClearly) {
    const auto r = run_process(cli(), {"--db", tmp.path(), "status"}, env());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("is a folder"), std::string::npos) << r.err;
}

TEST_F(cli_test, SimFaultReachesTheLinkOfAnotherProcess) {
    ASSERT_EQ(run({"connect"}).exit_code, 0);
    ASSERT_EQ(run({"sim", "fault", "bit-errors", "1e-6", "--enclosure", "0"}).exit_code, 0);
    // diag runs in its own process: its link opens with the posted bit-error rate.
    auto r = run({"diag", "-r", "2", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    auto tests = object(r.out)->getArray("tests");
    bool saw = false;
    for (unsigned i = 0; i < tests->size(); ++i) {
        auto t = tests->getObject(i);
        if (t->getValue<std::string>("test") != "pcie_errors") continue;
        saw = true;
        EXPECT_EQ(t->getValue<std::string>("result"), "FAIL");
        EXPECT_GT(t->getObject("details")->getValue<int64_t>("crc_errors"), 0);
    }
    EXPECT_TRUE(saw);
    // The link's counters are the enclosure's: `status` and `monitor`, each in a process of its
    // own that moved nothing, show the errors diag met.
    r = run({"status", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto health = object(r.out)->getArray("devices")->getObject(0)->getObject("health");
    EXPECT_GT(health->getValue<int64_t>("packets"), 0) << r.out;
    EXPECT_GT(health->getValue<int64_t>("packet_errors"), 0) << r.out;
    r = run({"monitor", "--json", "-c", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("\"link_crc_errors\":0,"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"link_crc_errors\":"), std::string::npos) << r.out;
    ASSERT_EQ(run({"sim", "fault", "clear"}).exit_code, 0);
    r = run({"diag", "-r", "2", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    run({"disconnect", "--force"});
}

TEST_F(cli_test, SimUnplugIsSeenByAProcessUsingTheDevice) {
    ASSERT_EQ(run({"connect"}).exit_code, 0);
    process_result monitor;
    std::thread watcher([&] { monitor = run({"monitor", "--json", "-c", "12", "-i", "150"}); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ASSERT_EQ(run({"sim", "unplug", "0"}).exit_code, 0);
    watcher.join();
    ASSERT_EQ(monitor.exit_code, 0) << monitor.err;
    // Its first samples read the GPU; once the fabric says the enclosure is out, they say so.
    EXPECT_NE(monitor.out.find("\"ok\":true"), std::string::npos) << monitor.out;
    EXPECT_NE(monitor.out.find("\"ok\":false"), std::string::npos) << monitor.out;
    run({"sim", "plug", "0"});
    run({"disconnect", "--force"});
}

TEST_F(cli_test, HistoryFilters) {
    ASSERT_EQ(run({"connect"}).exit_code, 0);
    ASSERT_EQ(run({"config", "power", "400"}).exit_code, 0);
    auto r = run({"history", "--kind", "connect", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto events = object(r.out)->getArray("events");
    ASSERT_GE(events->size(), 6u);
    for (unsigned i = 0; i < events->size(); ++i)
        EXPECT_EQ(events->getObject(i)->getValue<std::string>("kind").rfind("connect.", 0), 0u);
    r = run({"history", "--device-id", "cb5a1e00-0000-4000-8000-000000000001", "--kind", "config.power", "--json"});
    EXPECT_EQ(object(r.out)->getArray("events")->size(), 1u);
    r = run({"history", "--device-id", "nobody", "--json"});
    EXPECT_EQ(object(r.out)->getArray("events")->size(), 0u);
    r = run({"history", "--severity", "error", "--json"});
    EXPECT_EQ(object(r.out)->getArray("events")->size(), 0u);
    r = run({"history", "--since", "1h", "-n", "2", "--json"});
    EXPECT_EQ(object(r.out)->getArray("events")->size(), 2u);
    r = run({"history", "-d", "0", "--kind", "config", "--json"});
    EXPECT_EQ(object(r.out)->getArray("events")->size(), 1u);
    r = run({"history", "-n", "3"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(run({"history", "--severity", "loud"}).exit_code, 2);
    EXPECT_EQ(run({"history", "--since", "yesterday-ish"}).exit_code, 2);
    EXPECT_EQ(run({"history", "-n", "0"}).exit_code, 2);
    run({"disconnect", "--force"});
}

TEST_F(cli_test, SimFaultUnplugDuringACopyFailsTheCopyingProcess) {
    // `sim fault unplug` while another process copied was never applied to its link.
    ASSERT_EQ(run({"connect"}).exit_code, 0);
    auto copying = start({"benchmark"});
    ASSERT_TRUE(copying->wait_for_output("Benchmark of", 120)) << copying->out() << copying->err();
    ASSERT_EQ(run({"sim", "fault", "unplug"}).exit_code, 0);
    // The sweep takes tens of seconds; the unplug ends it at the next heartbeat, with the reason.
    const int code = copying->wait_exit(120);
    EXPECT_NE(code, 0) << copying->out();
    EXPECT_NE(code, -1) << "it did not end by itself";
    EXPECT_NE(copying->err().find("link down"), std::string::npos) << copying->err();
    // What it measured before the unplug is kept, and the failed step is named.
    EXPECT_NE(copying->out().find("figures stored"), std::string::npos) << copying->out();
    EXPECT_NE(copying->err().find("failed; the "), std::string::npos) << copying->err();
    run({"disconnect", "--force"});
}

}  // namespace
}  // namespace cudabridge::test

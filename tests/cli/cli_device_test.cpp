// The device commands on the simulated fabric: connect, info, status, devices, forget, reset,
// disconnect, in human and JSON form, by name and by alias; refusals and their exit codes.
#include "cli_fixture.hpp"

#include <cstdio>

namespace cudabridge::test {
namespace {

class cli_device_test : public cli_test {
protected:
    void connect() {
        auto r = run({"connect"});
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    }
    void TearDown() override { run({"disconnect", "--force"}); }
};

TEST_F(cli_device_test, ConnectShowsEachStepWithItsTime) {
    auto r = run({"connect"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* step : {"[1/6] detect", "[2/6] compatibility", "[3/6] authorization", "[4/6] tunnel",
                             "[5/6] gpu_init", "[6/6] monitoring"})
        EXPECT_NE(r.out.find(step), std::string::npos) << step << "\n" << r.out;
    EXPECT_NE(r.out.find(" ms "), std::string::npos);
    EXPECT_NE(r.out.find("Connected: NVIDIA GeForce RTX 5090"), std::string::npos);
    // A second connect finds the connection up (made by another process) and says so.
    r = run({"c", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto o = object(r.out);
    EXPECT_TRUE(o->getValue<bool>("connected"));
    EXPECT_TRUE(o->getValue<bool>("already_connected"));
}

TEST_F(cli_device_test, ConnectJsonListsTheSteps) {
    auto r = run({"--json", "connect"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto o = object(r.out);
    EXPECT_TRUE(o->getValue<bool>("connected"));
    auto steps = o->getArray("steps");
    ASSERT_EQ(steps->size(), 6u);
    EXPECT_EQ(steps->getObject(0)->getValue<std::string>("name"), "detect");
    EXPECT_EQ(steps->getObject(5)->getValue<std::string>("name"), "monitoring");
    for (unsigned i = 0; i < 6; ++i) EXPECT_TRUE(steps->getObject(i)->getValue<bool>("ok"));
    EXPECT_GT(o->getObject("device")->getValue<int64_t>("session_id"), 0);
}

// connect and info give the link's one usable bandwidth; the compatibility step's figure is the
// tunnel's nominal rate and says so.
TEST_F(cli_device_test, ConnectAndInfoAgreeOnTheUsableBandwidth) {
    auto r = run({"connect"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto link = object(run({"info", "--json"}).out)->getArray("devices")->getObject(0)->getObject("link");
    const double h2d = link->getValue<double>("h2d_bandwidth_gbs"), d2h = link->getValue<double>("d2h_bandwidth_gbs");
    const auto two = [](double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%.2f", v);
        return std::string(b);
    };
    EXPECT_NE(r.out.find("Usable bandwidth: " + two(h2d) + " GB/s host-to-device, " + two(d2h) +
                         " GB/s device-to-host (modeled"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("GB/s nominal"), std::string::npos) << r.out;
    ASSERT_EQ(run({"disconnect"}).exit_code, 0);
    auto device = object(run({"--json", "connect"}).out)->getObject("device");
    EXPECT_DOUBLE_EQ(device->getValue<double>("h2d_bandwidth_gbs"), h2d);
    EXPECT_DOUBLE_EQ(device->getValue<double>("d2h_bandwidth_gbs"), d2h);
    EXPECT_EQ(device->getValue<std::string>("bandwidth"), "modeled");
}

TEST_F(cli_device_test, InfoHumanAndJsonAgree) {
    connect();
    auto human = run({"info"});
    ASSERT_EQ(human.exit_code, 0) << human.err;
    for (const char* s : {"Product", "PCI", "Memory", "Clocks", "Power", "Temperature", "Link", "Backend",
                          "NVIDIA GeForce RTX 5090", "Thunderbolt 4", "simulated fabric"})
        EXPECT_NE(human.out.find(s), std::string::npos) << s;
    auto r = run({"i", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto d = object(r.out)->getArray("devices")->getObject(0);
    EXPECT_TRUE(d->getValue<bool>("simulated"));
    EXPECT_EQ(d->getObject("product")->getValue<std::string>("compute_capability"), "12.0");
    EXPECT_EQ(d->getObject("pci")->getValue<std::string>("device_id"), "0x2b85");
    // The GPU's PCIe link as the enclosure's port trained it (TB4 enclosures: gen 3 x4).
    EXPECT_EQ(d->getObject("pci")->getValue<int>("pcie_link_generation"), 3);
    EXPECT_EQ(d->getObject("pci")->getValue<int>("pcie_link_width"), 4);
    EXPECT_EQ(d->getObject("link")->getValue<int>("lanes"), 2);
    EXPECT_EQ(d->getObject("link")->getValue<std::string>("security_level"), "user");
    EXPECT_EQ(d->getObject("link")->getValue<std::string>("bandwidth"), "modeled");
    EXPECT_GT(d->getObject("power")->getValue<double>("max_limit_w"),
              d->getObject("power")->getValue<double>("min_limit_w"));
    EXPECT_EQ(d->getObject("temperature")->getValue<double>("shutdown_c"), 101);
    EXPECT_FALSE(d->getObject("backend")->getValue<std::string>("kernel_driver_reason").empty());
}

TEST_F(cli_device_test, InfoSectionsAreSelectable) {
    connect();
    auto r = run({"info", "--section", "link,power", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto d = object(r.out)->getArray("devices")->getObject(0);
    EXPECT_TRUE(d->has("link"));
    EXPECT_TRUE(d->has("power"));
    EXPECT_FALSE(d->has("product"));
    r = run({"info", "-s", "clocks"});
    EXPECT_NE(r.out.find("Clocks"), std::string::npos);
    EXPECT_EQ(r.out.find("Product"), std::string::npos);
    r = run({"info", "--section", "bogus"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unknown section 'bogus'"), std::string::npos);
}

TEST_F(cli_device_test, StatusShowsHealth) {
    connect();
    auto r = run({"s"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* s : {"State", "connected", "Temperature", "Error rate", "Heartbeat age", "Recoveries", "Session"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
    r = run({"status", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto o = object(r.out);
    EXPECT_TRUE(o->getValue<bool>("connected"));
    auto d = o->getArray("devices")->getObject(0);
    EXPECT_EQ(d->getObject("connection")->getValue<std::string>("state"), "connected");
    EXPECT_EQ(d->getObject("health")->getValue<int>("recoveries"), 0);
    EXPECT_TRUE(d->getObject("health")->getValue<bool>("link_up"));
    EXPECT_GT(d->getObject("session")->getValue<int64_t>("id"), 0);
}

TEST_F(cli_device_test, WithoutAConnectionDeviceCommandsExit3) {
    for (auto args : std::vector<std::vector<std::string>>{{"info"},
                                                           {"config", "show"},
                                                           {"monitor", "-c", "1"},
                                                           {"disconnect"},
                                                           {"reset"},
                                                           {"benchmark", "--quick"}}) {
        auto r = run(args);
        EXPECT_EQ(r.exit_code, 3) << args[0] << ": " << r.err;
        EXPECT_NE(r.err.find("no eGPU is connected"), std::string::npos) << args[0] << ": " << r.err;
    }
    auto r = run({"status", "--json"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_FALSE(object(r.out)->getValue<bool>("connected"));
    r = run({"status"});
    EXPECT_NE(r.out.find("disconnected"), std::string::npos);
}

TEST_F(cli_device_test, DevicesListsEnclosuresAndFunctions) {
    auto r = run({"devices", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto d = object(r.out)->getArray("devices")->getObject(0);
    EXPECT_EQ(d->getValue<std::string>("id"), "cb5a1e00-0000-4000-8000-000000000001");
    EXPECT_EQ(d->getValue<std::string>("generation"), "tb4");
    EXPECT_EQ(d->getValue<double>("link_speed_gbps"), 40);
    EXPECT_FALSE(d->getValue<bool>("connected"));
    EXPECT_FALSE(d->getValue<bool>("known"));
    connect();
    r = run({"ls", "--json"});
    d = object(r.out)->getArray("devices")->getObject(0);
    EXPECT_TRUE(d->getValue<bool>("connected"));
    EXPECT_TRUE(d->getValue<bool>("known"));
    EXPECT_EQ(d->getValue<std::string>("policy"), "manual");
    auto f = d->getArray("pci_functions")->getObject(0);
    EXPECT_EQ(f->getValue<std::string>("vendor_id"), "0x10de");
    EXPECT_EQ(f->getValue<std::string>("class"), "0x0300");
    EXPECT_EQ(f->getValue<int>("pcie_link_width"), 4);
    r = run({"devices"});
    EXPECT_NE(r.out.find("Simulated Thunderbolt 4 eGPU enclosure"), std::string::npos);
    EXPECT_NE(r.out.find("10de:2b85"), std::string::npos);
}

TEST_F(cli_device_test, ForgetDropsTheStoredDevice) {
    connect();
    run({"disconnect"});
    auto r = run({"forget", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run({"devices", "--json"});
    EXPECT_FALSE(object(r.out)->getArray("devices")->getObject(0)->getValue<bool>("known"));
    r = run({"forget", "0"});
    EXPECT_EQ(r.exit_code, 3);
    r = run({"forget"});
    EXPECT_EQ(r.exit_code, 2);
}

TEST_F(cli_device_test, SecureDomainNeedsEnrollment) {
    ASSERT_EQ(run({"sim", "plug", "rtx-4090", "--security", "secure"}).exit_code, 0);
    auto r = run({"connect", "1"});
    EXPECT_EQ(r.exit_code, 5) << r.err;  // refused: not enrolled
    EXPECT_NE(r.out.find("authorization FAIL"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("--enroll"), std::string::npos);
    // The hint names the device, so that the command as written enrols this one.
    const std::string id =
        object(run({"devices", "--json"}).out)->getArray("devices")->getObject(1)->getValue<std::string>("id");
    EXPECT_NE(r.err.find("cudabridge-cli connect --enroll " + id), std::string::npos) << r.err;
    r = run({"--json", "connect", "1"});
    EXPECT_EQ(r.exit_code, 5);
    auto o = object(r.out);
    EXPECT_FALSE(o->getValue<bool>("connected"));
    EXPECT_EQ(o->getValue<std::string>("failed_step"), "authorization");
    EXPECT_EQ(run({"connect", "1", "--enroll", "--policy", "sometimes"}).exit_code, 2);
    r = run({"connect", "1", "--enroll", "--policy", "manual"});  // boltctl enroll --policy manual
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("enrolled"), std::string::npos);
    EXPECT_NE(r.out.find("policy manual"), std::string::npos) << r.out;
    EXPECT_EQ(
        object(run({"devices", "--json"}).out)->getArray("devices")->getObject(1)->getValue<std::string>("policy"),
        "manual");
    ASSERT_EQ(run({"-d", "0", "disconnect"}).exit_code, 0);
    // Enrolled now: the stored key passes the challenge.
    r = run({"connect", "1"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

// boltctl domains: each domain with its security level and its enclosures; boltctl list's
// connection time in `devices`.
TEST_F(cli_device_test, DomainsAndConnectionTimes) {
    const auto domains = run({"domains", "--json"});
    ASSERT_EQ(domains.exit_code, 0) << domains.err;
    const auto first = object(domains.out)->getArray("domains")->getObject(0);
    EXPECT_EQ(first->getValue<std::string>("security_level"), "user");
    const std::string id =
        object(run({"devices", "--json"}).out)->getArray("devices")->getObject(0)->getValue<std::string>("id");
    EXPECT_NE(first->getArray("enclosures")->getElement<std::string>(0).find(id), std::string::npos);
    EXPECT_NE(run({"domains"}).out.find("security:   user"), std::string::npos);
    EXPECT_EQ(run({"domains", "extra"}).exit_code, 2);

    ASSERT_EQ(run({"connect"}).exit_code, 0);
    auto device = object(run({"devices", "--json"}).out)->getArray("devices")->getObject(0);
    EXPECT_TRUE(device->has("last_connected"));
    EXPECT_NE(run({"devices"}).out.find("connected since"), std::string::npos);
    ASSERT_EQ(run({"disconnect"}).exit_code, 0);
    device = object(run({"devices", "--json"}).out)->getArray("devices")->getObject(0);
    EXPECT_TRUE(device->has("last_disconnected"));
}

// boltctl authorize: a user-level enclosure authorized, its GPU not brought up; connect then
// finds it authorized and brings the GPU up.
TEST_F(cli_device_test, AuthorizeWithoutBringingTheGpuUp) {
    ASSERT_EQ(run({"sim", "plug", "rtx-4090"}).exit_code, 0);
    auto r = run({"--json", "authorize", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(object(r.out)->getValue<bool>("authorized"));
    auto device = object(run({"devices", "--json"}).out)->getArray("devices")->getObject(1);
    EXPECT_EQ(device->getValue<std::string>("authorized"), "authorized");
    EXPECT_FALSE(device->getValue<bool>("connected"));  // no GPU brought up
    r = run({"connect", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("already authorized"), std::string::npos) << r.out;
    EXPECT_EQ(run({"authorize", "1", "--policy", "never"}).exit_code, 2);
    ASSERT_EQ(run({"sim", "plug", "rtx-4090", "--security", "secure"}).exit_code, 0);
    EXPECT_EQ(run({"authorize", "2"}).exit_code, 5);  // a secure domain without --enroll
}

TEST_F(cli_device_test, PolicyRefusesAnUnderpoweredEnclosure) {
    ASSERT_EQ(run({"sim", "plug", "rtx-5090", "--power", "300"}).exit_code, 0);
    auto r = run({"connect", "1"});
    EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
    EXPECT_NE(r.out.find("compatibility FAIL"), std::string::npos) << r.out;
    // Nothing is left open: the device is not connected.
    r = run({"devices", "--json"});
    EXPECT_FALSE(object(r.out)->getArray("devices")->getObject(1)->getValue<bool>("connected"));
}

TEST_F(cli_device_test, ConnectWithNoEnclosureExits3) {
    ASSERT_EQ(run({"sim", "remove", "0"}).exit_code, 0);
    auto r = run({"connect"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.out.find("detect"), std::string::npos);
}

TEST_F(cli_device_test, ResetSoftAndHard) {
    connect();
    auto r = run({"r"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Soft-resetting"), std::string::npos);
    r = run({"reset", "--hard", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto o = object(r.out);
    EXPECT_EQ(o->getValue<std::string>("reset"), "hard");
    EXPECT_TRUE(o->getValue<bool>("ok"));
    EXPECT_EQ(run({"reset", "--bogus"}).exit_code, 2);
    r = run({"history", "--kind", "safety.manual_reset", "--json"});
    EXPECT_EQ(object(r.out)->getArray("events")->size(), 2u);
}

TEST_F(cli_device_test, DisconnectSafeAndForced) {
    connect();
    auto r = run({"dc"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* s : {"refuse", "drain", "free", "monitoring", "tunnel", "safe to unplug"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
    EXPECT_EQ(run({"status"}).exit_code, 3);
    connect();
    r = run({"disconnect", "--force", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto o = object(r.out);
    EXPECT_TRUE(o->getValue<bool>("forced"));
    EXPECT_EQ(o->getArray("steps")->size(), 6u);
}

// Every command by name and by alias, in human and in JSON form: exit 0, and the JSON parses.
TEST_F(cli_device_test, EveryCommandAndAliasInHumanAndJsonForm) {
    connect();
    const std::vector<std::vector<std::string>> forms = {{"info"},
                                                         {"i"},
                                                         {"status"},
                                                         {"s"},
                                                         {"monitor", "-c", "1"},
                                                         {"m", "-c", "1"},
                                                         {"config", "show"},
                                                         {"cf", "show"},
                                                         {"cf", "list"},
                                                         {"diag"},
                                                         {"d"},
                                                         {"benchmark", "--quick", "--max-size", "16K"},
                                                         {"b", "--quick", "--max-size", "16K"},
                                                         {"reset"},
                                                         {"r"},
                                                         {"devices"},
                                                         {"ls"},
                                                         {"log", "-n", "5"},
                                                         {"l", "-n", "5"},
                                                         {"history", "-n", "5"},
                                                         {"sim", "list"},
                                                         {"profile", "list"},
                                                         {"profile", "show", "rtx-5090"},
                                                         {"plugins", "list"},
                                                         {"p", "list"},
                                                         {"help"},
                                                         {"h"},
                                                         {"help", "connect"},
                                                         {"version"},
                                                         {"connect"},
                                                         {"c"}};
    for (const auto& f : forms) {
        auto human = run(f);
        EXPECT_EQ(human.exit_code, 0) << f[0] << ": " << human.err;
        EXPECT_FALSE(human.out.empty()) << f[0];
        auto args = f;
        args.push_back("--json");
        auto json = run(args);
        EXPECT_EQ(json.exit_code, 0) << f[0] << " --json: " << json.err;
        EXPECT_NO_THROW(parse(f[0] == "monitor" || f[0] == "m" ? json.out.substr(0, json.out.find('\n')) : json.out))
            << f[0] << " --json printed: " << json.out;
    }
    // disconnect (and its alias) last: each ends the connection.
    for (const char* name : {"disconnect", "dc"}) {
        auto r = run({name, "--json"});
        EXPECT_EQ(r.exit_code, 0) << name << r.err;
        EXPECT_NO_THROW(parse(r.out)) << r.out;
        connect();
    }
}

TEST_F(cli_device_test, DisconnectBadTimeoutIsAUsageError) {
    connect();
    auto r = run({"disconnect", "--timeout", "abc"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
}  // namespace cudabridge::test

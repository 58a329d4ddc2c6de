// `query`: nvidia-smi's --query-gpu fields against `info --json`, the CSV shape (heading, units,
// noheader, nounits), JSON, refusals, and loops bounded by -c or stopped with Ctrl-C (exit 130,
// every line complete). Dynamic figures are compared loosely; nothing here depends on timing.
#include "cli_fixture.hpp"

#include <csignal>
#include <regex>
#include <sstream>

namespace cudabridge::test {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) out.push_back(l);
    return out;
}

// nvidia-smi's CSV: values separated by ", ".
std::vector<std::string> cells_of(const std::string& line) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t at; (at = line.find(", ", start)) != std::string::npos; start = at + 2)
        out.push_back(line.substr(start, at - start));
    out.push_back(line.substr(start));
    return out;
}

std::string two_decimals(double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
}

class cli_query_test : public cli_test {
protected:
    void SetUp() override { ASSERT_EQ(run({"connect"}).exit_code, 0); }
    void TearDown() override { run({"disconnect", "--force"}); }

    // One reading of `fields` as CSV cells (no heading, units as given).
    std::vector<std::string> one_row(const std::string& fields, const std::string& format = "csv,noheader") const {
        auto r = run({"query", "--gpu=" + fields, "--format=" + format});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const auto l = lines_of(r.out);
        EXPECT_EQ(l.size(), 1u) << r.out;
        return l.empty() ? std::vector<std::string>{} : cells_of(l[0]);
    }
    Poco::JSON::Object::Ptr info_device() const {
        auto r = run({"info", "--json"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return object(r.out)->getArray("devices")->getObject(0);
    }
};

TEST_F(cli_query_test, HelpQueryListsTheFieldsAndSaysWhichAreModeled) {
    auto r = run({"query", "--help-query"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* f : {"index",
                          "name",
                          "uuid",
                          "pci.bus_id",
                          "temperature.gpu",
                          "power.draw",
                          "power.limit",
                          "memory.total",
                          "memory.used",
                          "memory.free",
                          "utilization.gpu",
                          "utilization.memory",
                          "clocks.sm",
                          "clocks.mem",
                          "clocks.max.sm",
                          "pcie.link.gen.current",
                          "pcie.link.width.current",
                          "fan.speed",
                          "pstate",
                          "timestamp",
                          "link.generation",
                          "link.crc_errors",
                          "link.replays",
                          "link.recoveries",
                          "safety.state"})
        EXPECT_NE(r.out.find(std::string("\n") + f + " "), std::string::npos) << f << " is not listed";
    // The second column: telemetry is modeled on a simulated GPU, the name is the profile's spec.
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\ntemperature\.gpu +modeled )"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\nname +spec )"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\nlink\.recoveries +counted )"))) << r.out;
}

TEST_F(cli_query_test, FieldsAgreeWithInfoJson) {
    const auto info = info_device();
    const auto product = info->getObject("product");
    const auto pci = info->getObject("pci");
    const auto memory = info->getObject("memory");
    const auto clocks = info->getObject("clocks");
    const auto power = info->getObject("power");
    const auto link = info->getObject("link");
    const auto c = one_row(
        "index,name,uuid,compute_cap,memory.total,memory.used,memory.free,clocks.max.sm,"
        "clocks.max.memory,power.limit,power.default_limit,pcie.link.gen.current,"
        "pcie.link.width.current,link.generation,link.bandwidth.h2d,link.bandwidth.d2h,pci.bus_id,"
        "pstate,safety.state");
    ASSERT_EQ(c.size(), 19u);
    EXPECT_EQ(c[0], "0");
    EXPECT_EQ(c[1], product->getValue<std::string>("name"));
    EXPECT_EQ(c[2], product->getValue<std::string>("uuid"));
    EXPECT_EQ(c[3], product->getValue<std::string>("compute_capability"));
    const uint64_t mib = 1024 * 1024;
    EXPECT_EQ(c[4], std::to_string(memory->getValue<uint64_t>("total_bytes") / mib) + " MiB");
    EXPECT_EQ(c[5], std::to_string(memory->getValue<uint64_t>("used_bytes") / mib) + " MiB");
    EXPECT_EQ(c[6], std::to_string(memory->getValue<uint64_t>("free_bytes") / mib) + " MiB");
    EXPECT_EQ(c[7], std::to_string(clocks->getValue<int>("max_sm_mhz")) + " MHz");
    EXPECT_EQ(c[8], std::to_string(clocks->getValue<int>("max_memory_mhz")) + " MHz");
    EXPECT_EQ(c[9], two_decimals(power->getValue<double>("limit_w")) + " W");
    EXPECT_EQ(c[10], two_decimals(power->getValue<double>("default_limit_w")) + " W");
    EXPECT_EQ(c[11], std::to_string(pci->getValue<int>("pcie_link_generation")));
    EXPECT_EQ(c[12], std::to_string(pci->getValue<int>("pcie_link_width")));
    EXPECT_EQ(c[13], link->getValue<std::string>("generation"));
    EXPECT_EQ(c[14], two_decimals(link->getValue<double>("h2d_bandwidth_gbs")) + " GB/s");
    EXPECT_EQ(c[15], two_decimals(link->getValue<double>("d2h_bandwidth_gbs")) + " GB/s");
    // nvidia-smi's bus id form: an 8-digit domain, upper-case hex.
    std::string bus = pci->getValue<std::string>("bus_id");
    for (char& ch : bus) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    EXPECT_EQ(c[16], std::string(8 - bus.find(':'), '0') + bus);
    EXPECT_EQ(c[17], info->getObject("power")->getValue<std::string>("performance_state"));
    EXPECT_EQ(c[18], "connected");

    const auto limits = one_row("power.min_limit,power.max_limit,enforced.power.limit,link.state,link.lanes");
    ASSERT_EQ(limits.size(), 5u);
    EXPECT_EQ(limits[0], two_decimals(power->getValue<double>("min_limit_w")) + " W");
    EXPECT_EQ(limits[1], two_decimals(power->getValue<double>("max_limit_w")) + " W");
    EXPECT_EQ(limits[2], two_decimals(power->getValue<double>("limit_w")) + " W");
    EXPECT_EQ(limits[3], link->getValue<bool>("up") ? "up" : "down");
    EXPECT_EQ(limits[4], std::to_string(link->getValue<int>("lanes")));
}

TEST_F(cli_query_test, ModeledFiguresLieBetweenTwoInfoReadings) {
    // Modeled figures move between readings: the query's must lie within what info read just
    // before and just after it (a degree and a watt of slack for rounding).
    const auto before = info_device();
    const auto c = one_row("temperature.gpu,power.draw,clocks.sm,clocks.mem,fan.speed", "csv,noheader,nounits");
    const auto after = info_device();
    ASSERT_EQ(c.size(), 5u);
    const auto within = [&](const std::string& text, const char* section, const char* key) {
        const double v = std::stod(text);
        const double a = before->getObject(section)->getValue<double>(key);
        const double b = after->getObject(section)->getValue<double>(key);
        EXPECT_GE(v, std::min(a, b) - 1) << key;
        EXPECT_LE(v, std::max(a, b) + 1) << key;
    };
    within(c[2], "clocks", "sm_mhz");
    within(c[3], "clocks", "memory_mhz");
    if (before->getObject("temperature")->has("fan_percent")) within(c[4], "temperature", "fan_percent");
    const double t = std::stod(c[0]), p = std::stod(c[1]);
    const double t0 = before->getObject("temperature")->getValue<double>("gpu_c");
    const double t1 = after->getObject("temperature")->getValue<double>("gpu_c");
    EXPECT_GE(t, std::min(t0, t1) - 1);
    EXPECT_LE(t, std::max(t0, t1) + 1);
    const double p0 = before->getObject("power")->getValue<double>("draw_w");
    const double p1 = after->getObject("power")->getValue<double>("draw_w");
    EXPECT_GE(p, std::min(p0, p1) - 1);
    EXPECT_LE(p, std::max(p0, p1) + 1);
}

TEST_F(cli_query_test, HeadingCarriesUnitsAndValuesFollowNvidiaSmi) {
    auto r = run({"query", "--gpu=name,power.draw,memory.used,utilization.gpu,temperature.gpu,clocks.sm,fan.speed",
                  "--format=csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto l = lines_of(r.out);
    ASSERT_EQ(l.size(), 2u) << r.out;
    EXPECT_EQ(l[0],
              "name, power.draw [W], memory.used [MiB], utilization.gpu [%], temperature.gpu, clocks.sm [MHz], "
              "fan.speed [%]");
    const auto c = cells_of(l[1]);
    ASSERT_EQ(c.size(), 7u);
    EXPECT_TRUE(std::regex_match(c[1], std::regex(R"(\d+\.\d\d W)"))) << c[1];
    EXPECT_TRUE(std::regex_match(c[2], std::regex(R"(\d+ MiB)"))) << c[2];
    EXPECT_TRUE(std::regex_match(c[3], std::regex(R"(\d+ %)"))) << c[3];
    EXPECT_TRUE(std::regex_match(c[4], std::regex(R"(\d+)"))) << c[4];
    EXPECT_TRUE(std::regex_match(c[5], std::regex(R"(\d+ MHz)"))) << c[5];
    EXPECT_TRUE(std::regex_match(c[6], std::regex(R"(\d+ %|\[N/A\])"))) << c[6];

    // nounits: bare values, the heading keeps the units; noheader: no heading.
    auto bare = run({"query", "--gpu=power.draw,memory.used,utilization.gpu", "--format=csv,nounits"});
    ASSERT_EQ(bare.exit_code, 0) << bare.err;
    const auto b = lines_of(bare.out);
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(b[0], "power.draw [W], memory.used [MiB], utilization.gpu [%]");
    EXPECT_TRUE(std::regex_match(b[1], std::regex(R"(\d+\.\d\d, \d+, \d+)"))) << b[1];
    auto quiet = run({"query", "--gpu=power.draw,memory.used", "--format=csv,noheader,nounits"});
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    const auto q = lines_of(quiet.out);
    ASSERT_EQ(q.size(), 1u) << quiet.out;
    EXPECT_TRUE(std::regex_match(q[0], std::regex(R"(\d+\.\d\d, \d+)"))) << q[0];
    // nvidia-smi's own spelling of the option and an alias of a field.
    auto smi = run({"query", "--query-gpu=clocks.current.sm", "--format=csv,noheader"});
    ASSERT_EQ(smi.exit_code, 0) << smi.err;
    EXPECT_TRUE(std::regex_match(lines_of(smi.out).at(0), std::regex(R"(\d+ MHz)"))) << smi.out;
}

TEST_F(cli_query_test, JsonHasNumbersAsNumbers) {
    auto r = run({"query", "--gpu=name,power.draw,memory.used,pstate", "--format=json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto d = object(r.out)->getArray("devices")->getObject(0);
    EXPECT_TRUE(d->getValue<bool>("modeled"));
    const auto v = d->getObject("values");
    EXPECT_EQ(v->getValue<std::string>("name"), info_device()->getObject("product")->getValue<std::string>("name"));
    EXPECT_TRUE(v->get("power.draw").isNumeric());
    EXPECT_TRUE(v->get("memory.used").isNumeric());
    EXPECT_TRUE(v->get("pstate").isString());
    auto j = run({"query", "--gpu=power.draw", "--json"});
    ASSERT_EQ(j.exit_code, 0) << j.err;
    EXPECT_TRUE(object(j.out)->getArray("devices")->getObject(0)->getObject("values")->get("power.draw").isNumeric());
}

TEST_F(cli_query_test, MistakesAreNamedAndExit2) {
    expect_refused({
        {{"query", "--gpu=name,temperature.gpu,no.such.field"}, 2, "unknown field 'no.such.field'"},
        {{"query", "--gpu=name", "--format=xml"}, 2, "unknown --format entry 'xml'"},
        {{"query", "--gpu=name", "--format=json,nounits"}, 2, "noheader and nounits go with csv"},
        {{"query", "--gpu=name", "-l", "1", "-lms", "100"}, 2, "choose one of -l SEC and -lms MS"},
        {{"query", "--gpu=name", "-lms", "0"}, 2, "-lms must be a whole number"},
        {{"query", "--gpu=name", "-l", "x"}, 2, "-l must be a whole number"},
        {{"query", "--format=csv"}, 2, "name the fields"},
        {{"query", "--gpu=,"}, 2, "names no field"},
        {{"query", "--gpu=nmae"}, 2, "did you mean 'name'?"},
        {{"--qeury-gpu=name"}, 2, "did you mean '--query-gpu'?"},
    });
}

// Scripts written for nvidia-smi call it without a command: the same options reach `query`.
TEST_F(cli_query_test, NvidiaSmisQueryOptionsWorkWithoutTheCommand) {
    const auto direct = run({"--query-gpu=name,uuid", "--format=csv,noheader"});
    ASSERT_EQ(direct.exit_code, 0) << direct.err;
    EXPECT_EQ(direct.out, run({"query", "--query-gpu=name,uuid", "--format=csv,noheader"}).out);
    const auto listed = run({"-L"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    // nvidia-smi -L: "GPU 0: NAME (UUID: GPU-...)"
    const std::string uuid =
        direct.out.substr(direct.out.find(", ") + 2, direct.out.find('\n') - direct.out.find(", ") - 2);
    const std::string name = direct.out.substr(0, direct.out.find(", "));
    EXPECT_EQ(listed.out, "GPU 0: " + name + " (UUID: " + uuid + ")\n");
    EXPECT_EQ(run({"--list-gpus"}).out, listed.out);
    EXPECT_EQ(run({"--help-query-gpu"}).out, run({"query", "--help-query"}).out);
}

// nvidia-smi -i: the eGPU named by index, UUID or PCI bus id, with or without the command.
TEST_F(cli_query_test, IdNamesTheGpuByIndexUuidOrBusId) {
    const auto ids = one_row("index,uuid,pci.bus_id");
    ASSERT_EQ(ids.size(), 3u);
    const std::string bus_without_domain = ids[2].substr(ids[2].find(':') + 1);
    for (const std::string& id : {ids[0], ids[1], ids[2], bus_without_domain}) {
        const auto r = run({"-i", id, "--query-gpu=index", "--format=csv,noheader"});
        EXPECT_EQ(r.exit_code, 0) << id << ": " << r.err;
        EXPECT_EQ(r.out, ids[0] + "\n") << id;
        EXPECT_EQ(run({"query", "--id=" + id, "--query-gpu=index", "--format=csv,noheader"}).out, r.out) << id;
    }
    const auto none = run({"--query-gpu=name", "-i", "GPU-00000000-dead", "--format", "csv"});
    EXPECT_EQ(none.exit_code, 3);
    EXPECT_NE(none.err.find("no eGPU has the id 'GPU-00000000-dead'"), std::string::npos) << none.err;
    EXPECT_EQ(run({"-L", "-i", ids[1]}).exit_code, 0);
    EXPECT_EQ(run({"query", "-d", "0", "-i", "0", "--query-gpu=name"}).exit_code, 2);  // one way to choose
    // nvidia-smi's -l and -c without the command: their values are no command names.
    const auto looped = run({"--query-gpu=index", "-l", "1", "-c", "2", "--format", "csv,noheader"});
    EXPECT_EQ(looped.exit_code, 0) << looped.err;
    EXPECT_EQ(looped.out, ids[0] + "\n" + ids[0] + "\n");
}

// nvidia-smi without arguments prints its summary table: so does cudabridge-cli with an eGPU
// connected (without one, its help: cli_frame_test's NoCommandShowsHelp).
TEST_F(cli_query_test, NoCommandPrintsTheSummaryTable) {
    const auto r = run({});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string name = one_row("name")[0];
    EXPECT_NE(r.out.find(name.substr(0, 20)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Bus-Id"), std::string::npos);
    EXPECT_NE(r.out.find("Processes:"), std::string::npos);
    EXPECT_EQ(run({"summary"}).exit_code, 0);
    EXPECT_EQ(run({"summary", "extra"}).exit_code, 2);
}

TEST_F(cli_query_test, PmonPrintsItsHeadingAndALinePerGpu) {
    const auto r = run({"pmon", "-c", "1", "-s", "um"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("# gpu         pid   type", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("\n    0 "), std::string::npos) << r.out;
    EXPECT_EQ(run({"pmon", "-s", "x"}).exit_code, 2);
    EXPECT_EQ(run({"pmon", "--delay", "0"}).exit_code, 2);
}

TEST_F(cli_query_test, LoopBoundedByCountGivesCompleteLines) {
    auto r = run({"query", "--gpu=timestamp,name,power.draw", "--format=csv", "-lms", "50", "-c", "4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto l = lines_of(r.out);
    ASSERT_EQ(l.size(), 5u) << r.out;  // the heading once, then a line per reading
    EXPECT_EQ(l[0], "timestamp, name, power.draw [W]");
    for (size_t i = 1; i < l.size(); ++i) {
        const auto c = cells_of(l[i]);
        ASSERT_EQ(c.size(), 3u) << l[i];
        EXPECT_TRUE(std::regex_match(c[0], std::regex(R"(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3})"))) << c[0];
        EXPECT_TRUE(std::regex_match(c[2], std::regex(R"(\d+\.\d\d W)"))) << c[2];
    }
}

TEST_F(cli_query_test, LoopStoppedWithCtrlCExits130WithCompleteLines) {
    auto p = start({"query", "--gpu=timestamp,name,utilization.gpu", "--format=csv,noheader", "-lms", "20"});
    ASSERT_TRUE(p->wait_for_output(" %\n", 120)) << p->out() << p->err();
    p->signal(SIGINT);
    EXPECT_EQ(p->wait_exit(120), 130) << p->out() << p->err();
    const std::string out = p->out();
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.back(), '\n') << "a line was cut short:\n" << out;
    for (const auto& line : lines_of(out)) {
        const auto c = cells_of(line);
        ASSERT_EQ(c.size(), 3u) << line;
        EXPECT_TRUE(std::regex_match(c[2], std::regex(R"(\d+ %)"))) << line;
    }
}

TEST_F(cli_query_test, ReadOnlyCommandsRecordNothingNotEvenTheirJoin) {
    // status, info and query join the connection `connect` made, and leave no event behind:
    // neither a connection step nor a reading.
    const auto events = [&] {
        auto r = run({"history", "-n", "100000", "--json"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return object(r.out)->getArray("events")->size();
    };
    const std::vector<std::vector<std::string>> commands = {
        {"status"},
        {"info"},
        {"status", "--json"},
        {"query", "--gpu=name,power.draw,link.crc_errors", "-c", "1"},
        {"query", "--gpu=name,power.draw,link.crc_errors", "-lms", "10", "-c", "5"},
    };
    for (const auto& command : commands) {
        const size_t before = events();
        const auto r = run(command);
        ASSERT_EQ(r.exit_code, 0) << command.front() << ": " << r.err;
        EXPECT_EQ(events(), before) << command.front() << " recorded events";
    }
}

class cli_query_unconnected_test : public cli_test {};

TEST_F(cli_query_unconnected_test, NoEgpuExits3AndHelpQueryNeedsNone) {
    auto r = run({"query", "--gpu=name"});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("no eGPU is connected"), std::string::npos) << r.err;
    EXPECT_EQ(run({"query", "--help-query"}).exit_code, 0);
}

}  // namespace
}  // namespace cudabridge::test

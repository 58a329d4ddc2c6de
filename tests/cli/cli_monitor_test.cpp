// `monitor`: JSON lines, CSV, plain lines off a terminal, Ctrl-C, and load from another process.
#include "cli_fixture.hpp"

#include <chrono>
#include <csignal>
#include <sstream>
#include <thread>

namespace cudabridge::test {
namespace {

class cli_monitor_test : public cli_test {
protected:
    void SetUp() override { ASSERT_EQ(run({"connect"}).exit_code, 0); }
    void TearDown() override { run({"disconnect", "--force"}); }
    static std::vector<std::string> lines(const std::string& text) {
        std::vector<std::string> out;
        std::istringstream in(text);
        for (std::string l; std::getline(in, l);)
            if (!l.empty()) out.push_back(l);
        return out;
    }
};

TEST_F(cli_monitor_test, JsonLinesOnePerSample) {
    auto r = run({"m", "--json", "-c", "3", "-i", "100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto l = lines(r.out);
    ASSERT_EQ(l.size(), 3u);
    for (const auto& line : l) {
        auto o = object(line);
        EXPECT_TRUE(o->getValue<bool>("ok"));
        EXPECT_TRUE(o->getValue<bool>("modeled"));
        EXPECT_GT(o->getValue<double>("temperature_c"), 0);
        EXPECT_EQ(o->getValue<double>("power_limit_w"), 575);
        EXPECT_EQ(o->getValue<int>("pcie_link_width"), 4);
        EXPECT_TRUE(o->get("throttle_reasons").type() == typeid(Poco::JSON::Array::Ptr));
    }
}

TEST_F(cli_monitor_test, CsvHasAHeaderAndNumericRows) {
    auto r = run({"monitor", "--csv", "-c", "2", "-i", "100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto l = lines(r.out);
    ASSERT_EQ(l.size(), 3u);
    EXPECT_EQ(l[0].rfind("time,index,id,temperature_c,power_w", 0), 0u);
    std::vector<std::string> cells;
    std::istringstream row(l[1]);
    for (std::string c; std::getline(row, c, ',');) cells.push_back(c);
    ASSERT_GE(cells.size(), 20u);
    EXPECT_NO_THROW((void)std::stod(cells[3]));  // temperature
    EXPECT_NO_THROW((void)std::stod(cells[4]));  // power
    EXPECT_EQ(cells[13], "8");                   // P8 at idle, as a number
}

TEST_F(cli_monitor_test, PlainLinesWhenNotATerminal) {
    auto r = run({"monitor", "-c", "2", "-i", "100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto l = lines(r.out);
    ASSERT_EQ(l.size(), 2u);
    EXPECT_NE(l[0].find("gpu 0 temp"), std::string::npos);
    EXPECT_EQ(r.out.find("\033["), std::string::npos);  // no escape codes in a pipe
}

TEST_F(cli_monitor_test, BadArguments) {
    EXPECT_EQ(run({"monitor", "-i", "10"}).exit_code, 2);
    EXPECT_EQ(run({"monitor", "-c", "0"}).exit_code, 2);
    EXPECT_EQ(run({"monitor", "--json", "--csv", "-c", "1"}).exit_code, 2);
    EXPECT_EQ(run({"monitor", "-i", "fast"}).exit_code, 2);
    EXPECT_EQ(run({"-d", "3", "monitor", "-c", "1"}).exit_code, 3);
}

TEST_F(cli_monitor_test, CtrlCEndsItCleanly) {
    auto p = start({"monitor", "--json", "-i", "100"});
    // Interrupted once its second line has begun, so at least two are written.
    ASSERT_TRUE(p->wait_for_output("}\n{", 120)) << p->out() << p->err();
    p->signal(SIGINT);
    EXPECT_EQ(p->wait_exit(120), 0) << p->err();
    const auto text = p->out();
    EXPECT_GE(lines(text).size(), 2u);
    for (const auto& l : lines(text)) EXPECT_NO_THROW(object(l)) << l;  // no line cut in half
}

TEST_F(cli_monitor_test, SeesLoadRunningInAnotherProcess) {
    auto idle = object(lines(run({"monitor", "--json", "-c", "1"}).out).at(0));
    const double idle_util = idle->getValue<double>("gpu_utilization");
    // The load: a verified compute stress in its own process.
    process_result load;
    std::thread worker([&] { load = run({"diag", "-r", "3", "--duration", "4"}); });
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    auto r = run({"monitor", "--json", "-c", "8", "-i", "250"});
    worker.join();
    ASSERT_EQ(load.exit_code, 0) << load.out << load.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    double peak_util = 0, peak_power = 0;
    for (const auto& l : lines(r.out)) {
        auto o = object(l);
        peak_util = std::max(peak_util, o->getValue<double>("gpu_utilization"));
        peak_power = std::max(peak_power, o->getValue<double>("power_w"));
    }
    EXPECT_GT(peak_util, idle_util + 10) << r.out;
    EXPECT_GT(peak_power, idle->getValue<double>("power_w")) << r.out;
}

// nvitop's process rows: a process using the GPU appears in `monitor --json`'s "processes" with
// its pid, type and memory; none while nobody uses it.
TEST_F(cli_monitor_test, ListsTheProcessesUsingTheGpu) {
    auto idle = object(lines(run({"monitor", "--json", "-c", "1"}).out).at(0));
    EXPECT_EQ(idle->getArray("processes")->size(), 0u);
    process_result load;
    std::thread worker([&] { load = run({"diag", "-r", "3", "--duration", "5"}); });
    bool seen = false;
    for (int i = 0; i < 100 && !seen; ++i) {
        auto o = object(lines(run({"monitor", "--json", "-c", "1"}).out).at(0));
        auto rows = o->getArray("processes");
        for (size_t k = 0; k < rows->size(); ++k) {
            auto p = rows->getObject(static_cast<unsigned>(k));
            seen = seen || (p->getValue<int>("pid") > 0 && p->getValue<std::string>("type") == "C");
        }
        if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    worker.join();
    ASSERT_EQ(load.exit_code, 0) << load.out << load.err;
    EXPECT_TRUE(seen) << "the diag process never appeared in monitor's processes";
}

}  // namespace
}  // namespace cudabridge::test

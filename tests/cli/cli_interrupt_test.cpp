// Ctrl-C during the long commands: what was measured is reported, and the exit code is 130.
// Each test waits for the command to show it has started (no fixed sleep), then interrupts it.
#include "cli_fixture.hpp"

#include <csignal>

namespace cudabridge::test {
namespace {

class cli_interrupt_test : public cli_test {
protected:
    void SetUp() override { ASSERT_EQ(run({"connect"}).exit_code, 0); }
    void TearDown() override { run({"disconnect", "--force"}); }
};

TEST_F(cli_interrupt_test, CtrlCDuringBenchmarkShowsWhatWasMeasuredAndExits130) {
    // The full sweep runs for tens of seconds; Ctrl-C used to kill it with nothing shown.
    auto p = start({"benchmark"});
    ASSERT_TRUE(p->wait_for_output("Benchmark of", 120)) << p->out() << p->err();
    p->signal(SIGINT);
    EXPECT_EQ(p->wait_exit(120), 130) << p->out() << p->err();
    EXPECT_NE(p->out().find("figures stored"), std::string::npos) << p->out();
    EXPECT_NE(p->err().find("interrupted"), std::string::npos) << p->err();
    EXPECT_EQ(p->out().find("d2d "), std::string::npos) << "the sweep ran to its end:\n" << p->out();
}

TEST_F(cli_interrupt_test, CtrlCDuringDiagReportsTheTestsThatRanAndExits130) {
    auto p = start({"diag", "-r", "3", "--duration", "600"});
    ASSERT_TRUE(p->wait_for_output("Level 1", 120)) << p->out() << p->err();
    p->signal(SIGINT);
    EXPECT_EQ(p->wait_exit(120), 130) << p->out() << p->err();
    EXPECT_NE(p->out().find("Result: "), std::string::npos) << p->out();
    EXPECT_NE(p->out().find("interrupted by Ctrl-C"), std::string::npos) << p->out();
}

}  // namespace
}  // namespace cudabridge::test

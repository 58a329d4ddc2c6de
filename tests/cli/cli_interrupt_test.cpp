// Ctrl-C during the long commands: what was measured is reported, and the exit code is 130.
// Each test waits for the command to show it has started (no fixed sleep), then interrupts it.
#include "cli_fixture.hpp"
#include "read_file.hpp"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace cudabridge::test {
namespace {

class cli_interrupt_test : public cli_test {
protected:
    void SetUp() override { ASSERT_EQ(run({"connect"}).exit_code, 0); }
    void TearDown() override { run({"disconnect", "--force"}); }

    struct outcome {
        bool started = false;  // the text to wait for appeared
        int exit_code = -1;    // -1: it did not end by itself
        std::string out, err;
    };

    // Starts the CLI with `args`, waits until its stdout holds `started`, sends SIGINT and waits
    // for the exit. Generous deadlines: only a command that ignores Ctrl-C runs into them.
    outcome interrupt_when(const std::vector<std::string>& args, const std::string& started) {
        const std::string out = (tmp / "run.out").string(), err = (tmp / "run.err").string();
        std::vector<std::string> argv = {"/usr/bin/env", "HOME=" + tmp.path(), "XDG_STATE_HOME=" + (tmp / "state").string(),
                                         "XDG_DATA_HOME=" + (tmp / "data").string(), cli(), "--db", db()};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<char*> cargs;
        for (auto& a : argv) cargs.push_back(a.data());
        cargs.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        pid_t pid = 0;
        outcome o;
        const int spawned = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, cargs.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        if (spawned != 0) return o;
        using clock = std::chrono::steady_clock;
        int status = 0;
        bool exited = false;
        for (auto until = clock::now() + std::chrono::seconds(120); clock::now() < until;) {
            if (read_file(out).find(started) != std::string::npos) {
                o.started = true;
                break;
            }
            if (waitpid(pid, &status, WNOHANG) == pid) {
                exited = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (!exited) {
            kill(pid, SIGINT);
            for (auto until = clock::now() + std::chrono::seconds(120); !exited && clock::now() < until;) {
                exited = waitpid(pid, &status, WNOHANG) == pid;
                if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
        if (!exited) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        } else if (WIFEXITED(status)) {
            o.exit_code = WEXITSTATUS(status);
        }
        o.out = read_file(out);
        o.err = read_file(err);
        return o;
    }
};

TEST_F(cli_interrupt_test, CtrlCDuringBenchmarkShowsWhatWasMeasuredAndExits130) {
    // The full sweep runs for tens of seconds; Ctrl-C used to kill it with nothing shown.
    const auto o = interrupt_when({"benchmark"}, "Benchmark of");
    ASSERT_TRUE(o.started) << o.out << o.err;
    EXPECT_EQ(o.exit_code, 130) << o.out << o.err;
    EXPECT_NE(o.out.find("figures stored"), std::string::npos) << o.out;
    EXPECT_NE(o.err.find("interrupted"), std::string::npos) << o.err;
    EXPECT_EQ(o.out.find("d2d "), std::string::npos) << "the sweep ran to its end:\n" << o.out;
}

TEST_F(cli_interrupt_test, CtrlCDuringDiagReportsTheTestsThatRanAndExits130) {
    const auto o = interrupt_when({"diag", "-r", "3", "--duration", "600"}, "Level 1");
    ASSERT_TRUE(o.started) << o.out << o.err;
    EXPECT_EQ(o.exit_code, 130) << o.out << o.err;
    EXPECT_NE(o.out.find("Result: "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("interrupted by Ctrl-C"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace cudabridge::test

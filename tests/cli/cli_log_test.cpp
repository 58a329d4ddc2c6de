// `log write` goes through the sinks; `log` reads the SQLite sink's rows back with filters.
#include "cli_fixture.hpp"

#include <csignal>
#include <sys/select.h>
#include <tuple>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace cudabridge::test {
namespace {

std::vector<std::string> sinks_in(const temp_dir& tmp) {
    return {"--log-sink", "sqlite", "--log-sink", "file:dir=" + (tmp / "logs").string()};
}

TEST_F(cli_test, WriteThenReadBack) {
    auto w = run({"log", "write", "--category", "driver", "--level", "warn", "GPU", "initialized:", "RTX", "5090"});
    ASSERT_EQ(w.exit_code, 0) << w.err;
    auto r = run({"log", "-n", "5", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto arr = parse(r.out).extract<Poco::JSON::Array::Ptr>();
    ASSERT_GE(arr->size(), 1u);
    auto last = arr->getObject(static_cast<unsigned>(arr->size() - 1));
    EXPECT_EQ(last->getValue<std::string>("message"), "GPU initialized: RTX 5090");
    EXPECT_EQ(last->getValue<std::string>("level"), "WARN");
    EXPECT_EQ(last->getValue<std::string>("category"), "DRIVER");
    EXPECT_TRUE(last->get("time_ns").isInteger());
    r = run({"log", "-n", "5"});
    EXPECT_NE(r.out.find("WARN  [DRIVER] GPU initialized: RTX 5090"), std::string::npos) << r.out;
}

TEST_F(cli_test, FiltersByLevelCategoryCountAndTime) {
    auto opts = sinks_in(tmp);
    for (auto [lvl, cat, msg] :
         std::vector<std::tuple<std::string, std::string, std::string>>{{"INFO", "EGPU", "one"},
                                                                        {"ERROR", "EGPU", "two"},
                                                                        {"ERROR", "MEMORY", "three"},
                                                                        {"DEBUG", "CLI", "four"}}) {
        std::vector<std::string> args = opts;
        args.insert(args.end(), {"log", "write", "--level", lvl, "--category", cat, msg});
        ASSERT_EQ(run(args).exit_code, 0);
    }
    auto count = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"log", "--json"});
        auto r = run(args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return parse(r.out).extract<Poco::JSON::Array::Ptr>()->size();
    };
    EXPECT_EQ(count({"--level", "ERROR"}), 2u);
    EXPECT_EQ(count({"--category", "egpu"}), 2u);
    EXPECT_EQ(count({"--level", "ERROR", "--category", "MEMORY"}), 1u);
    EXPECT_EQ(count({"-n", "1"}), 1u);
    EXPECT_EQ(count({"--since", "1h"}), 4u);
    EXPECT_EQ(count({"--since", "@0"}), 4u);
    EXPECT_EQ(count({"--since", "2200-01-01"}), 0u);
    // Times outside int64 nanoseconds (1677..2262) are clamped, not wrapped around (found by
    // tests/fuzz/since_duration_fuzzer): wrapped, the first read as 1970, the second as 2169.
    EXPECT_EQ(count({"--since", "@18446744074"}), 0u);
    EXPECT_EQ(count({"--since", "1000-01-01"}), 4u);
    // The file sink got the same records.
    std::ifstream in(tmp / "logs" / "cudabridge.log");
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_NE(ss.str().find("three"), std::string::npos);
}

TEST_F(cli_test, WriteJsonNamesTheSinks) {
    auto w = run({"--log-sink", "sqlite", "log", "write", "--json", "--level", "ERROR", "json", "record"});
    ASSERT_EQ(w.exit_code, 0) << w.err;
    auto o = object(w.out);
    EXPECT_TRUE(o->getValue<bool>("written"));
    EXPECT_EQ(o->getValue<std::string>("message"), "json record");
    ASSERT_EQ(o->getArray("sinks")->size(), 1u);
    EXPECT_EQ(o->getArray("sinks")->getElement<std::string>(0), "sqlite");
}

TEST_F(cli_test, UnknownLogSinkIsReportedAndTheRestGoOn) {
    auto w = run({"--log-sink", "nosuchsink", "--log-sink", "sqlite", "log", "write", "still", "stored"});
    EXPECT_EQ(w.exit_code, 0) << w.err;
    EXPECT_NE(w.err.find("nosuchsink"), std::string::npos) << w.err;
    auto r = run({"log", "-n", "1", "--json"});
    auto arr = parse(r.out).extract<Poco::JSON::Array::Ptr>();
    ASSERT_EQ(arr->size(), 1u);
    EXPECT_EQ(arr->getObject(0)->getValue<std::string>("message"), "still stored");
    EXPECT_EQ(run({"--log-sink", "file:oops", "log", "write", "x"}).exit_code, 2);
}

TEST_F(cli_test, LogArgumentErrors) {
    EXPECT_EQ(run({"log", "-n", "0"}).exit_code, 2);
    EXPECT_EQ(run({"log", "--since", "yesterday-ish"}).exit_code, 2);
    EXPECT_EQ(run({"log", "--level", "LOUD"}).exit_code, 2);
    EXPECT_EQ(run({"log", "write"}).exit_code, 2);
}

TEST_F(cli_test, EmptyLogIsValidJson) {
    auto r = run({"log", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(parse(r.out).extract<Poco::JSON::Array::Ptr>()->size(), 0u);
}

TEST_F(cli_test, FollowPrintsRecordsFromAnotherProcessAndStopsOnSigint) {
    ASSERT_EQ(run({"log", "write", "before"}).exit_code, 0);
    int out_pipe[2];
    ASSERT_EQ(pipe(out_pipe), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        dup2(out_pipe[1], 1);
        close(out_pipe[0]);
        setenv("HOME", tmp.path().c_str(), 1);
        execl(cli().c_str(), cli().c_str(), "--db", db().c_str(), "log", "--follow", "--json", "-n", "1",
              static_cast<char*>(nullptr));
        _exit(127);
    }
    close(out_pipe[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(run({"log", "write", "from", "another", "process"}).exit_code, 0);
    std::string seen;
    char buf[4096];
    for (int i = 0; i < 200 && seen.find("from another process") == std::string::npos; ++i) {
        fd_set set;
        FD_ZERO(&set);
        FD_SET(out_pipe[0], &set);
        timeval tv{0, 100000};
        if (select(out_pipe[0] + 1, &set, nullptr, nullptr, &tv) > 0) {
            ssize_t n = read(out_pipe[0], buf, sizeof buf);
            if (n <= 0) break;
            seen.append(buf, static_cast<size_t>(n));
        }
    }
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    close(out_pipe[0]);
    EXPECT_NE(seen.find("before"), std::string::npos) << seen;
    EXPECT_NE(seen.find("from another process"), std::string::npos) << seen;
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    // Each line is a JSON object.
    std::stringstream lines(seen);
    std::string line;
    while (std::getline(lines, line)) EXPECT_NO_THROW(parse(line)) << line;
}

TEST_F(cli_test, LogWriteFailsWhenNoSinkWouldTakeTheRecord) {
    // It exited 0 with only a warning: the record was stored nowhere.
    const auto r = run({"--log-sink", "nonexist", "log", "write", "lost?"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("would be lost"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nonexist"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cudabridge::test

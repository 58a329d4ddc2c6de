// A connected GPU that stops answering: commands say so (never "no eGPU is connected"), and
// `reset --hard` and `disconnect --force` still reach it, through a function-level reset on the
// link.
#include "cli_fixture.hpp"

namespace cudabridge::test {
namespace {

class cli_unanswering_gpu_test : public cli_test {
protected:
    void SetUp() override {
        ASSERT_EQ(run({"connect"}).exit_code, 0);
        ASSERT_EQ(run({"sim", "fault", "stuck", "on"}).exit_code, 0);
    }
    void TearDown() override {
        run({"sim", "fault", "clear"});
        run({"disconnect", "--force"});
    }
};

TEST_F(cli_unanswering_gpu_test, CommandsSayTheConnectedGpuCannotBeReached) {
    const auto r = run({"info"});
    EXPECT_EQ(r.exit_code, 6) << r.err;
    EXPECT_EQ(r.err.find("no eGPU is connected"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("connected but could not be reached"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("reset --hard"), std::string::npos) << r.err;
}

TEST_F(cli_unanswering_gpu_test, StatusSaysUnreachableNotDisconnected) {
    const auto r = run({"status"});
    EXPECT_EQ(r.exit_code, 6) << r.out << r.err;
    EXPECT_NE(r.out.find("State: unreachable"), std::string::npos) << r.out;
    const auto j = run({"status", "--json"});
    EXPECT_TRUE(object(j.out)->getValue<bool>("unreachable")) << j.out;
}

TEST_F(cli_unanswering_gpu_test, DiagReportsTheUnreachableGpuAsAFailure) {
    const auto r = run({"diag"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("FAIL  connection"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("could not be reached"), std::string::npos) << r.out;
}

TEST_F(cli_unanswering_gpu_test, HardResetBringsItBackForEveryLaterCommand) {
    const auto r = run({"reset", "--hard"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Done"), std::string::npos) << r.out;
    EXPECT_EQ(run({"info"}).exit_code, 0);  // another process, another link: it answers
    const auto h = run({"history", "--kind", "connect.function_reset"});
    EXPECT_NE(h.out.find("reset through the link"), std::string::npos) << h.out;
}

TEST_F(cli_unanswering_gpu_test, ForcedDisconnectEndsTheConnection) {
    const auto r = run({"disconnect", "--force"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Disconnected"), std::string::npos) << r.out;
    const auto d = run({"devices", "--json"});
    EXPECT_EQ(d.out.find("\"connected\": true"), std::string::npos) << d.out;
}

TEST_F(cli_unanswering_gpu_test, ASoftResetDoesNotReachIt) {
    // Only --hard resets the function through the link; a soft reset needs the GPU to answer.
    EXPECT_EQ(run({"reset"}).exit_code, 6);
}

}  // namespace
}  // namespace cudabridge::test

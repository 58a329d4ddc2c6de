// The frame: exit codes, option placement, help and version, JSON validity.
#include "cli_fixture.hpp"

#include <cudabridge/abi.h>

#include <fstream>

namespace cudabridge::test {
namespace {

TEST_F(cli_test, HelpListsCommandsAndExitsZero) {
    auto r = run({"help"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const char* c : {"help", "version", "plugins", "log", "config"})
        EXPECT_NE(r.out.find(c), std::string::npos) << c;
    EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
}

TEST_F(cli_test, NoCommandShowsHelp) {
    auto r = run({});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("Commands:"), std::string::npos);
}

TEST_F(cli_test, HelpForOneCommandAndAliases) {
    auto r = run({"help", "config"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("list | get KEY | set KEY VALUE"), std::string::npos);
    EXPECT_EQ(run({"help", "cf"}).exit_code, 0);
    EXPECT_EQ(run({"help", "nosuch"}).exit_code, 2);
    EXPECT_EQ(run({"config", "--help"}).exit_code, 0);
}

TEST_F(cli_test, UnknownCommandAndOptionAreUsageErrors) {
    auto r = run({"frobnicate"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
    EXPECT_EQ(run({"--device", "abc", "help"}).exit_code, 2);
    EXPECT_EQ(run({"-d", "-3", "help"}).exit_code, 2);
    EXPECT_EQ(run({"plugins"}).exit_code, 2);
    EXPECT_EQ(run({"plugins", "explode"}).exit_code, 2);
    EXPECT_EQ(run({"log", "--bogus"}).exit_code, 2);
}

// A mistyped command or option gets the closest one suggested (a swap, a letter too many or too
// few, or the start of exactly one); a word close to nothing gets no guess.
TEST_F(cli_test, AMistypedCommandOrOptionGetsTheClosestSuggested) {
    struct typo {
        std::vector<std::string> args;
        std::string suggestion;  // "" for none
    };
    for (const auto& [args, suggestion] : std::vector<typo>{
             {{"statsu"}, "status"},
             {{"conect"}, "connect"},
             {{"disc"}, "disconnect"},
             {{"histroy"}, "history"},
             {{"frobnicate"}, ""},
             {{"log", "--levle", "INFO"}, "--level"},
             {{"history", "--severty", "error"}, "--severity"},
             {{"plugins", "list", "--zzzzzz"}, ""},
         }) {
        auto r = run(args);
        EXPECT_EQ(r.exit_code, 2) << args[0];
        if (suggestion.empty())
            EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
        else
            EXPECT_NE(r.err.find("(did you mean '" + suggestion + "'?)"), std::string::npos) << r.err;
    }
}

TEST_F(cli_test, VersionJsonAfterTheCommandIsHonoured) {
    for (auto args : std::vector<std::vector<std::string>>{{"version", "--json"}, {"-j", "version"}}) {
        auto r = run(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto o = object(r.out);
        EXPECT_EQ(o->getValue<int>("abi_major"), CB_ABI_MAJOR);
        EXPECT_TRUE(o->has("version"));
    }
}

TEST_F(cli_test, HelpJsonParses) {
    auto r = run({"help", "--json"});
    ASSERT_EQ(r.exit_code, 0);
    auto o = object(r.out);
    EXPECT_GE(o->getArray("commands")->size(), 5u);
    r = run({"help", "log", "--json"});
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_EQ(object(r.out)->getValue<std::string>("alias"), "l");
}

TEST_F(cli_test, UnopenableStoreIsAnErrorNotACrash) {
    auto r = run_process(cli(), {"--db", "/proc/cudabridge/nope.db", "config", "list"}, env());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("/proc/cudabridge"), std::string::npos) << r.err;
}

TEST_F(cli_test, StrayWordsAndOutOfRangeNumbersAreUsageErrors) {
    // Each was accepted: stray words ignored, -1 read as the largest count, a wrapped --since.
    const std::vector<std::vector<std::string>> bad = {
        {"log", "extra"},
        {"diag", "extra"},
        {"disconnect", "extra"},
        {"history", "-n", "-1"},
        {"monitor", "-c", "-1"},
        {"log", "--since", "999999999d"},
        {"sim", "fault", "link-drop", "1e20"},
        {"sim", "fault", "unplug-after", "1e30"},
    };
    for (const auto& args : bad) {
        const auto r = run(args);
        EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << ": " << r.out << r.err;
        EXPECT_FALSE(r.err.empty());
    }
    EXPECT_NE(run({"log", "extra"}).err.find("unexpected argument 'extra'"), std::string::npos);
    EXPECT_EQ(run({"history", "-n", "5"}).exit_code, 0);
    EXPECT_EQ(run({"log", "--since", "5m"}).exit_code, 0);
}

// Each exited 0 (found by the soak script's malformed invocations): an empty word taken as no
// command, as 'auto' and as "all sections", an empty field dropped, a misspelt sink ignored.
TEST_F(cli_test, EmptyWordsAndUnknownSinksAreUsageErrorsNotDefaults) {
    const std::vector<std::vector<std::string>> bad = {
        {""},
        {"connect", ""},
        {"info", "--section", ""},
        {"query", "--gpu=name,,temperature.gpu"},
        {"query", "--gpu=name,"},
        {"query", "--query-compute-apps=pid,,used_memory"},
        {"--log-sink", "bogus", "status"},
        {"--a", "--b"},  // --a was taken, by guessing, for the hidden --args: help, exit 0
        {"--bogus"},
    };
    for (const auto& args : bad) {
        const auto r = run(args);
        const std::string shown = args.size() > 1 ? args[0] + " " + args[1] : "'" + args[0] + "'";
        EXPECT_EQ(r.exit_code, 2) << shown << ": " << r.out << r.err;
        EXPECT_FALSE(r.err.empty()) << shown;
    }
    EXPECT_NE(run({""}).err.find("unknown command ''"), std::string::npos);
    EXPECT_NE(run({"--log-sink", "bogus", "status"}).err.find("no logsink plugin named 'bogus'"), std::string::npos);
    EXPECT_NE(run({"query", "--gpu=name,,temperature.gpu"}).err.find("an empty field name"), std::string::npos);
}

TEST_F(cli_test, ProfileImportRefusesWhatIsNoProfileFileSayingWhy) {
    const auto scalar = tmp / "scalar.json";
    std::ofstream(scalar) << "42\n";
    auto r = run({"profile", "import", scalar.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("is not a JSON object (it starts with '4')"), std::string::npos) << r.err;
    r = run({"profile", "import", "/dev/zero"});  // never ends: read up to the cap, then refused
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("larger than"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cudabridge::test

// `profile` overrides and import / export; `help` for every command and alias; `completion`.
#include "cli_fixture.hpp"

#include "read_file.hpp"

#include <filesystem>
#include <fstream>

namespace cudabridge::test {
namespace {

TEST_F(cli_test, ProfilesAreSeededAndValid) {
    auto r = run({"profile", "list", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto arr = object(r.out)->getArray("profiles");
    EXPECT_GE(arr->size(), 18u);
    for (unsigned i = 0; i < arr->size(); ++i) {
        const auto key = arr->getObject(i)->getValue<std::string>("key");
        auto e = run({"profile", "export", key});
        ASSERT_EQ(e.exit_code, 0) << key << e.err;
        // Every seeded profile passes the family's own check when imported back unchanged.
        const auto file = (tmp / (key + ".json")).string();
        std::ofstream(file) << e.out;
        auto im = run({"profile", "import", file, "--json"});
        EXPECT_EQ(im.exit_code, 0) << key << im.err;
        EXPECT_EQ(object(im.out)->getValue<int>("overrides"), 0) << key;
    }
}

TEST_F(cli_test, AnOverrideChangesWhatConfigPowerAccepts) {
    ASSERT_EQ(run({"connect"}).exit_code, 0);
    EXPECT_EQ(run({"config", "power", "700"}).exit_code, 0);  // the profile allows up to 719 W
    ASSERT_EQ(run({"disconnect"}).exit_code, 0);
    auto r = run({"profile", "set", "rtx-5090", "power_max_w", "600W", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(object(r.out)->getValue<double>("old"), 719);
    r = run({"profile", "show", "rtx-5090", "--json"});
    auto fields = object(r.out)->getArray("fields");
    bool found = false;
    for (unsigned i = 0; i < fields->size(); ++i) {
        auto f = fields->getObject(i);
        if (f->getValue<std::string>("name") != "power_max_w") continue;
        found = true;
        EXPECT_EQ(f->getValue<std::string>("origin"), "override");
        EXPECT_EQ(f->getValue<double>("value"), 600);
        EXPECT_EQ(f->getValue<double>("profile_value"), 719);
    }
    EXPECT_TRUE(found);
    ASSERT_EQ(run({"connect"}).exit_code, 0);
    r = run({"config", "power", "650"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("outside 270-600 W"), std::string::npos) << r.err;
    r = run({"info", "--json", "-s", "power"});
    EXPECT_EQ(object(r.out)->getArray("devices")->getObject(0)->getObject("power")->getValue<double>("max_limit_w"),
              600);
    run({"disconnect", "--force"});
    ASSERT_EQ(run({"profile", "reset", "rtx-5090"}).exit_code, 0);
    r = run({"history", "--kind", "profile", "--json"});
    EXPECT_EQ(object(r.out)->getArray("events")->size(), 1u);
}

TEST_F(cli_test, AnOverrideShapesTheSimulatedGpu) {
    ASSERT_EQ(run({"profile", "set", "rtx-5090", "vram_bytes", "16G"}).exit_code, 0);
    ASSERT_EQ(run({"connect"}).exit_code, 0);
    auto r = run({"info", "--json", "-s", "memory"});
    EXPECT_EQ(object(r.out)->getArray("devices")->getObject(0)->getObject("memory")->getValue<int64_t>("total_bytes"),
              int64_t{16} << 30);
    run({"disconnect", "--force"});
}

TEST_F(cli_test, BadOverridesAndImportsChangeNothing) {
    expect_refused({
        {{"profile", "set", "rtx-5090", "power_max_w", "10"}, 1, "power_min_w..power_max_w"},
        {{"profile", "set", "rtx-5090", "frobs", "1"}, 1, "unknown key 'frobs'"},
        {{"profile", "set", "rtx-5090", "power_max_w", "600MHz"}, 2, "is in W"},
        {{"profile", "set", "rtx-5090", "sm_count", "many"}, 2, "takes a number"},
        {{"profile", "set", "rtx-5090", "resizable_bar", "perhaps"},
         2,
         "resizable_bar: 'perhaps' is not a boolean (use 1/0"},
        {{"profile", "set", "rtx-5090", "fan_curve", "1"}, 2, "profile import"},
        {{"profile", "set", "rtx-5090", "pci_device_id", "0x1234"}, 1, "cannot be overridden"},
        {{"profile", "set", "rtx-9999", "sm_count", "1"}, 1, "no GPU profile 'rtx-9999'"},
        {{"profile", "show", "0xzz"}, 1, "no GPU profile"},
        {{"profile", "import", "/nonexistent.json"}, 1, "cannot read"},
        {{"profile", "frob"}, 2, "unknown subcommand"},
    });
    auto exported = run({"profile", "export", "rtx-4090"});
    ASSERT_EQ(exported.exit_code, 0);
    auto p = object(exported.out);
    p->set("sm_count", 100);  // breaks cuda_cores per SM
    p->set("frobs", 1);       // and an unknown key
    const auto file = (tmp / "bad.json").string();
    {
        std::ofstream out(file);
        p->stringify(out);
    }
    auto r = run({"profile", "import", file});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("unknown key 'frobs'"), std::string::npos) << r.err;
    r = run({"profile", "list", "--json"});
    auto arr = object(r.out)->getArray("profiles");
    for (unsigned i = 0; i < arr->size(); ++i) EXPECT_EQ(arr->getObject(i)->getValue<int>("overrides"), 0);
    EXPECT_EQ(object(run({"history", "--kind", "profile", "--json"}).out)->getArray("events")->size(), 0u);
}

TEST_F(cli_test, ImportAddsANewModelAndDiffsASeededOne) {
    auto p = object(run({"profile", "export", "rtx-4090"}).out);
    p->set("memory_bandwidth_gbps", 900.0);
    auto file = (tmp / "tuned.json").string();
    {
        std::ofstream out(file);
        p->stringify(out);
    }
    auto r = run({"profile", "import", file, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(object(r.out)->getValue<int>("overrides"), 1);
    p->set("key", std::string("lab-4090"));
    p->set("name", std::string("Lab RTX 4090"));
    p->set("pci_device_id", std::string("0x7777"));
    file = (tmp / "new.json").string();
    {
        std::ofstream out(file);
        p->stringify(out);
    }
    r = run({"profile", "import", file, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(object(r.out)->getValue<int>("added"), 1);
    r = run({"profile", "show", "0x7777"});
    EXPECT_NE(r.out.find("Lab RTX 4090"), std::string::npos);
}

TEST_F(cli_test, HelpForEveryCommandAndAliasHasAnExample) {
    auto r = run({"help", "--json"});
    ASSERT_EQ(r.exit_code, 0);
    auto commands = object(r.out)->getArray("commands");
    ASSERT_GE(commands->size(), 19u);
    for (unsigned i = 0; i < commands->size(); ++i) {
        auto c = commands->getObject(i);
        for (const auto& name : {c->getValue<std::string>("name"), c->getValue<std::string>("alias")}) {
            if (name.empty()) continue;
            auto h = run({"help", name});
            EXPECT_EQ(h.exit_code, 0) << name;
            EXPECT_NE(h.out.find("Usage: cudabridge-cli"), std::string::npos) << name;
            EXPECT_NE(h.out.find("Example"), std::string::npos) << name << ": no example\n" << h.out;
        }
    }
    for (const char* name : {"info", "status", "connect", "disconnect", "monitor", "config", "diag", "log", "benchmark",
                             "reset", "devices", "forget", "history", "sim", "profile", "plugins", "help"})
        EXPECT_EQ(run({"help", name}).exit_code, 0) << name;
    r = run({"help"});
    EXPECT_NE(r.out.find("3 no eGPU"), std::string::npos) << r.out;  // the exit code table
}

// cudabridge-cli(1) is written from the help text: every command is a section, and man renders
// it without a warning.
TEST_F(cli_test, TheManualPageHasEveryCommandAndRendersWithoutWarnings) {
    auto r = run({"help", "--man"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind(".TH CUDABRIDGE\\-CLI 1 ", 0), 0u) << r.out.substr(0, 200);
    auto commands = object(run({"help", "--json"}).out)->getArray("commands");
    for (unsigned i = 0; i < commands->size(); ++i) {
        std::string name = commands->getObject(i)->getValue<std::string>("name");
        for (size_t at = name.find('-'); at != std::string::npos; at = name.find('-', at + 2)) name.insert(at, "\\");
        EXPECT_NE(r.out.find("\n.SS " + name), std::string::npos) << name;
    }
    if (!std::filesystem::exists("/usr/bin/man")) GTEST_SKIP() << "man is not installed to render the page";
    const auto page = (tmp / "cudabridge-cli.1").string();
    std::ofstream(page) << r.out;
    auto m = run_process("/bin/sh", {"-c", "MANWIDTH=100 man --warnings -l " + page});
    EXPECT_EQ(m.exit_code, 0) << m.err;
    EXPECT_EQ(m.err, "") << "troff warnings";
    EXPECT_NE(m.out.find("--query-compute-apps=FIELDS"), std::string::npos);
    EXPECT_NE(m.out.find("EXIT STATUS"), std::string::npos);
}

TEST_F(cli_test, CompletionKnowsEveryCommand) {
    auto r = run({"completion", "bash"});
    ASSERT_EQ(r.exit_code, 0);
    auto commands = object(run({"help", "--json"}).out)->getArray("commands");
    for (unsigned i = 0; i < commands->size(); ++i)
        EXPECT_NE(r.out.find(" " + commands->getObject(i)->getValue<std::string>("name") + " "), std::string::npos);
    EXPECT_NE(r.out.find("complete -F _cudabridge_cli cudabridge-cli"), std::string::npos);
    // bash accepts it, and it completes subcommands.
    const auto script = (tmp / "completion.bash").string();
    std::ofstream(script) << r.out;
    auto b =
        run_process("/bin/bash", {"-c", "source " + script +
                                            "; COMP_WORDS=(cudabridge-cli config p); COMP_CWORD=2; _cudabridge_cli; "
                                            "echo \"${COMPREPLY[*]}\""});
    EXPECT_EQ(b.exit_code, 0) << b.err;
    EXPECT_NE(b.out.find("power"), std::string::npos) << b.out;
    EXPECT_NE(b.out.find("pstate"), std::string::npos) << b.out;
    EXPECT_EQ(run({"completion", "fish"}).exit_code, 2);
    EXPECT_NE(run({"completion", "zsh"}).out.find("bashcompinit"), std::string::npos);
}

// The script knows what the word before the cursor asks for, and asks the store as typed (--db)
// for its config keys and GPU profiles. Each case: the words typed, and what must be offered.
TEST_F(cli_test, CompletionKnowsWhatEachWordAsksFor) {
    const auto script = (tmp / "completion.bash").string();
    std::ofstream(script) << run({"completion", "bash"}).out;
    const auto offered = [&](const std::string& typed) {
        auto b = run_process("/bin/bash",
                             {"-c", "source " + script + "; COMP_WORDS=(" + cli() + " --db " + db() + " " + typed +
                                        "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                                        "_cudabridge_cli; echo \"${COMPREPLY[*]}\""});
        EXPECT_EQ(b.exit_code, 0) << b.err;
        return b.out.substr(0, b.out.find_last_not_of('\n') + 1);
    };
    const std::string plot = (tmp / "sweep.png").string();
    std::ofstream(plot) << "";
    struct expectation {
        std::string typed, offered;
    };
    for (const auto& [typed, want] : std::vector<expectation>{
             {"help dis", "disconnect"},
             {"h qu", "query"},
             {"info --section proc", "processes"},
             {"log --level W", "WARN"},
             {"log write --category EG", "EGPU"},
             {"history --severity cr", "critical"},
             {"sim fault da", "dart-exhausted"},
             {"config get standard.thermal_l", "standard.thermal_limit"},
             {"config set log.sin", "log.sinks"},
             {"profile show rtx-509", "rtx-5090"},
             {"profile set rtx-5090 power_ma", "power_max_w"},
             {"benchmark --plot " + (tmp / "swe").string(), plot},
             {"config ps", "pstate"},
         })
        EXPECT_EQ(offered(typed), want) << typed;
    EXPECT_EQ(run({"completion", "words", "nothing"}).exit_code, 2);
}

}  // namespace
}  // namespace cudabridge::test

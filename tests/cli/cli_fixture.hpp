// Runs the built cudabridge-cli against a private store and home folder.
#pragma once

#include "background_process.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace cudabridge::test {

class cli_test : public ::testing::Test {
protected:
    std::string cli() const { return std::string(CB_TEST_BUILD_DIR) + "/bin/cudabridge-cli"; }
    std::string db() const { return (tmp / "cb.db").string(); }

    process_options env() const {
        process_options o;
        o.set_env = {{"HOME", tmp.path()},
                     {"XDG_STATE_HOME", (tmp / "state").string()},
                     {"XDG_DATA_HOME", (tmp / "data").string()}};
        o.unset_env = {"CUDABRIDGE_PLUGIN_PATH", "CUDABRIDGE_ADD_PLUGIN_PATH", "CUDABRIDGE_HOME", "NO_COLOR"};
        return o;
    }

    // Runs with --db and a file sink folder inside the temporary tree.
    process_result run(std::vector<std::string> args, process_options o) const {
        args.insert(args.begin(), {"--db", db()});
        return run_process(cli(), args, o);
    }
    process_result run(std::vector<std::string> args) const { return run(std::move(args), env()); }
    // The CLI in the background with this test's store and home folder.
    std::unique_ptr<background_process> start(std::vector<std::string> args) const {
        args.insert(args.begin(), {"--db", db()});
        const process_options o = env();
        return std::make_unique<background_process>(cli(), args, o.set_env, o.unset_env, tmp.path());
    }

    static Poco::Dynamic::Var parse(const std::string& text) {
        Poco::JSON::Parser parser;
        return parser.parse(text);
    }
    static Poco::JSON::Object::Ptr object(const std::string& text) {
        return parse(text).extract<Poco::JSON::Object::Ptr>();
    }

    // A command line that must be refused: its exit code and a phrase of its message.
    struct refusal {
        std::vector<std::string> args;
        int code;
        const char* says;
    };
    void expect_refused(const std::vector<refusal>& cases) const {
        for (const auto& c : cases) {
            auto r = run(c.args);
            EXPECT_EQ(r.exit_code, c.code) << c.args.front() << " ... " << c.args.back() << ": " << r.err;
            EXPECT_NE(r.err.find(c.says), std::string::npos) << "expected '" << c.says << "' in: " << r.err;
        }
    }

    temp_dir tmp;
};

}  // namespace cudabridge::test

// `config list | get | set` over declared parameters: types, ranges, names, history.
#include "cli_fixture.hpp"

#include <map>

namespace cudabridge::test {
namespace {

TEST_F(cli_test, ConfigListJsonHasCoreAndSinkParameters) {
    auto r = run({"config", "list", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto arr = object(r.out)->getArray("settings");
    std::map<std::string, Poco::JSON::Object::Ptr> by_key;
    for (size_t i = 0; i < arr->size(); ++i) {
        auto o = arr->getObject(static_cast<unsigned>(i));
        by_key[o->getValue<std::string>("key")] = o;
        EXPECT_FALSE(o->getValue<std::string>("help").empty()) << o->getValue<std::string>("key");
    }
    ASSERT_TRUE(by_key.count("log.level"));
    EXPECT_EQ(by_key["log.level"]->getValue<std::string>("value"), "INFO");
    ASSERT_TRUE(by_key.count("store.logs_max_rows"));
    EXPECT_TRUE(by_key["store.logs_max_rows"]->get("value").isInteger());  // numbers as numbers
    ASSERT_TRUE(by_key.count("file.max_size"));                            // declared by the rotating file sink
    EXPECT_EQ(by_key["file.max_size"]->getValue<int64_t>("default"), 10485760);
}

TEST_F(cli_test, ConfigSetGetRoundTripWithChecks) {
    auto r = run({"config", "set", "log.level", "DEBUG"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("INFO -> DEBUG"), std::string::npos);
    r = run({"config", "get", "log.level"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "DEBUG\n");

    r = run({"config", "set", "store.logs_max_rows", "5000", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto o = object(r.out);
    EXPECT_EQ(o->getValue<int>("old"), 200000);
    EXPECT_EQ(o->getValue<int>("new"), 5000);
}

TEST_F(cli_test, ConfigRefusesBadValuesWithAReason) {
    struct bad {
        std::vector<std::string> args;
        int code;
        const char* says;
    };
    const bad cases[] = {
        {{"config", "set", "log.level", "BANANA"}, 1, "not a log level"},
        {{"config", "set", "log.overflow_policy", "sometimes"}, 1, "not an overflow policy"},
        {{"config", "set", "store.logs_max_rows", "abc"}, 1, "not an integer"},
        {{"config", "set", "store.logs_max_rows", "5"}, 1, "out of range"},
        {{"config", "set", "nosuch.key", "1"}, 1, "unknown setting 'nosuch.key'"},
        {{"config", "get", "nosuch.key"}, 1, "unknown setting"},
        {{"config", "set", "log.level"}, 2, "KEY and VALUE"},
        {{"config", "frob"}, 2, "unknown subcommand"},
    };
    for (const auto& c : cases) {
        auto r = run(c.args);
        EXPECT_EQ(r.exit_code, c.code) << c.args.back() << ": " << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    }
    // Nothing was changed by the refused writes.
    EXPECT_EQ(run({"config", "get", "store.logs_max_rows"}).out, "200000\n");
}

TEST_F(cli_test, ConfigGetJson) {
    auto r = run({"config", "get", "log.queue_capacity", "--json"});
    ASSERT_EQ(r.exit_code, 0);
    auto o = object(r.out);
    EXPECT_EQ(o->getValue<int>("value"), 65536);
    EXPECT_EQ(o->getValue<std::string>("source"), "default");
    EXPECT_TRUE(o->has("min"));
}

TEST_F(cli_test, LogSinksThatWouldStoreRecordsNowhereAreRefused) {
    // Both were accepted, and later records went nowhere.
    for (const char* bad : {"nonexist", "", ",", "console,nonexist"}) {
        const auto r = run({"config", "set", "log.sinks", bad});
        EXPECT_NE(r.exit_code, 0) << "'" << bad << "': " << r.out;
        EXPECT_NE(r.err.find("log.sinks"), std::string::npos) << r.err;
    }
    EXPECT_EQ(run({"config", "set", "log.sinks", "console,sqlite"}).exit_code, 0);
    EXPECT_EQ(run({"config", "get", "log.sinks"}).out, "console,sqlite\n");
}

}  // namespace
}  // namespace cudabridge::test

// Which plugins a session picks: flag > environment > stored setting > default, each choice
// remembering where it came from; a plugin that is not there is a clear error; and what a
// session stores when it opens (its settings, the GPU family's model profiles).
#include "host_fixture.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/store.hpp>

#include <map>

namespace cudabridge::test {
namespace {

TEST_F(host_test, PluginSelectionFollowsFlagThenEnvironmentThenSettingThenDefault) {
    core::store db(tmp / "select.db");
    std::map<std::string, std::string> env;
    auto getenv = [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    host::selection_flags flags;
    auto s = host::resolve_selection(flags, db, getenv);
    EXPECT_EQ(s.transport.value, "usb4");
    EXPECT_EQ(s.transport.origin, "default");
    EXPECT_EQ(s.gpu.value, "nvidia");
    EXPECT_EQ(s.safety.value, "standard");
    EXPECT_EQ(s.log_sinks.value, "console,file,sqlite");

    core::set_setting(db, "global", "session.safety", "strict");
    s = host::resolve_selection(flags, db, getenv);
    EXPECT_EQ(s.safety.value, "strict");
    EXPECT_EQ(s.safety.origin, "setting");

    env["CUDABRIDGE_SAFETY"] = "lab";
    s = host::resolve_selection(flags, db, getenv);
    EXPECT_EQ(s.safety.value, "lab");
    EXPECT_EQ(s.safety.origin, "environment");

    flags.safety = "standard";
    s = host::resolve_selection(flags, db, getenv);
    EXPECT_EQ(s.safety.value, "standard");
    EXPECT_EQ(s.safety.origin, "flag");
    EXPECT_EQ(s.transport.origin, "default") << "each choice on its own";
}

// --safety standard:thermal_limit=85, as plugins/safety/README.md documents it: the name picks
// the plugin, the entries configure its instance and win over the stored settings.
TEST_F(host_test, AChoiceCarriesItsInstanceConfigAfterTheName) {
    host::choice c{"standard:thermal_limit=85,max_retry_count=5", "flag"};
    core::config_entries config = {{"heartbeat_timeout_ms", "9000"}};
    host::take_instance_config(c, config);
    EXPECT_EQ(c.value, "standard");
    const core::config_entries want = {
        {"thermal_limit", "85"}, {"max_retry_count", "5"}, {"heartbeat_timeout_ms", "9000"}};
    EXPECT_EQ(config, want);

    auto o = session_options();
    o.flags.safety = "standard:thermal_limit=85";
    auto s = std::make_unique<host::session>(o);
    EXPECT_EQ(s->safety_number("thermal_limit", 0), 85);

    for (const std::string bad : {"standard:thermal_limit", "standard:=3", ":x=1", "standard:"}) {
        host::choice b{bad, "flag"};
        core::config_entries none;
        EXPECT_THROW(host::take_instance_config(b, none), core::error) << bad;
    }
}

TEST_F(host_test, AMissingPluginIsAClearError) {
    auto o = session_options();
    o.flags.gpu = "amd";
    try {
        host::session s(o);
        FAIL() << "opened a session with no such GPU family";
    } catch (const core::error& e) {
        EXPECT_EQ(e.status(), CB_ERR_NOT_FOUND);
        EXPECT_NE(std::string(e.what()).find("'amd'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("flag"), std::string::npos) << e.what();
    }
}

TEST_F(host_test, TheSessionDeclaresItsSettings) {
    auto s = open_session();
    std::lock_guard lock(s->store_mutex());
    for (const char* name :
         {"session.transport", "session.gpu", "session.safety", "session.deauthorize_on_disconnect"}) {
        auto p = core::find_parameter(s->db(), name);
        ASSERT_TRUE(p) << name;
        EXPECT_FALSE(p->help.empty()) << name;
    }
}

// Seeding the model profiles is the session's: the registry (core) asks a GPU family nothing.
TEST_F(host_test, OpeningASessionSeedsTheGpuFamilysModelProfiles) {
    auto s = open_session();
    std::lock_guard lock(s->store_mutex());
    const auto rows = core::list_gpu_profiles(s->db());
    EXPECT_FALSE(rows.empty());
    for (const auto& row : rows) EXPECT_EQ(row.source, "plugin " + s->gpu_info().name) << row.key;
    EXPECT_TRUE(core::find_gpu_profile_by_key(s->db(), "rtx-5090"));
}

}  // namespace
}  // namespace cudabridge::test

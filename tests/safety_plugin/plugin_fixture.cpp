#include "plugin_fixture.hpp"

#include <cudabridge/core/error.hpp>

namespace cudabridge::test {

void safety_plugin_test::SetUp() {
    database = std::make_unique<core::store>(tmp / "cb.database");
    core::search_options o;
    o.extra_paths = {CB_TEST_PLUGIN_DIR};
    o.use_environment = false;
    o.privileged = false;
    o.installed_dir = "/nonexistent";
    reg = std::make_unique<core::registry>(*database, o);
    reg->scan();
}

void safety_plugin_test::create(const std::string& name, const core::config_entries& config) {
    policy.reset();
    policy = reg->create(CB_KIND_SAFETY, name, config);
    ASSERT_NE(policy, nullptr);
    ASSERT_NE(table(), nullptr);
}

cb_verdict safety_plugin_test::check(const cb_device_facts& facts) {
    cb_verdict v{};
    v.struct_size = sizeof v;
    EXPECT_EQ(table()->check_compatibility(instance(), &facts, &v), CB_OK) << core::last_error();
    return v;
}

cb_safety_decision safety_plugin_test::evaluate(const cb_health_history& history) {
    cb_safety_decision d{};
    d.struct_size = sizeof d;
    EXPECT_EQ(table()->evaluate(instance(), &history, &d), CB_OK) << core::last_error();
    return d;
}

}  // namespace cudabridge::test

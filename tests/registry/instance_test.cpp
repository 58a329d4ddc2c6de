// Creating instances: host services reach the plugin, failures carry the plugin's own reason,
// and an older plugin's missing entries read as NULL.
#include "read_file.hpp"
#include "registry_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <cstring>
#include <fstream>
#include <sstream>

namespace cudabridge::test {
namespace {

cb_log_record record(const char* message) {
    cb_log_record r{};
    r.struct_size = sizeof r;
    r.level = CB_LOG_WARN;
    r.category = "DRIVER";
    r.message = message;
    r.message_len = static_cast<uint32_t>(std::strlen(message));
    return r;
}

TEST_F(registry_test, GoodPluginWritesThroughItsTable) {
    core::registry reg(*db, only({variant_dir("good")}));
    reg.scan();
    const std::string out = tmp / "good.txt";
    {
        auto inst = reg.create(CB_KIND_LOGSINK, "testsink", {{"path", out}});
        ASSERT_NE(inst->logsink(), nullptr);
        auto r = record("hello from the test");
        EXPECT_EQ(inst->logsink()->write(inst->handle(), &r), CB_OK);
        EXPECT_NE(inst->logsink()->write_batch, nullptr);
        EXPECT_EQ(inst->logsink()->flush(inst->handle()), CB_OK);
    }
    EXPECT_NE(read_file(out).find("hello from the test"), std::string::npos);
    // The plugin declared its parameter through the host services.
    auto p = core::find_parameter(*db, "testsink.path");
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->help.empty());
}

TEST_F(registry_test, StoredSettingReachesThePlugin) {
    const std::string out = tmp / "from-setting.txt";
    core::set_setting(*db, "global", "testsink.path", out);
    core::registry reg(*db, only({variant_dir("good")}));
    reg.scan();
    {
        auto inst = reg.create(CB_KIND_LOGSINK, "testsink");
        auto r = record("via the stored setting");
        EXPECT_EQ(inst->logsink()->write(inst->handle(), &r), CB_OK);
    }
    EXPECT_NE(read_file(out).find("via the stored setting"), std::string::npos);
}

TEST_F(registry_test, OlderMinorLacksWriteBatchAndStillWorks) {
    core::registry reg(*db, only({variant_dir("older_minor")}));
    reg.scan();
    const std::string out = tmp / "old.txt";
    {
        auto inst = reg.create(CB_KIND_LOGSINK, "testsink", {{"path", out}});
        EXPECT_EQ(inst->logsink()->struct_size, sizeof(cb_logsink_table));
        EXPECT_EQ(inst->logsink()->write_batch, nullptr);  // absent in ABI 1.0: host default applies
        auto r = record("old plugin");
        EXPECT_EQ(inst->logsink()->write(inst->handle(), &r), CB_OK);
    }
    EXPECT_NE(read_file(out).find("old plugin"), std::string::npos);
}

TEST_F(registry_test, NewerMinorIsUsedThroughTheFieldsTheHostKnows) {
    core::registry reg(*db, only({variant_dir("newer_minor")}));
    reg.scan();
    const std::string out = tmp / "new.txt";
    {
        auto inst = reg.create(CB_KIND_LOGSINK, "testsink", {{"path", out}});
        EXPECT_EQ(inst->logsink()->struct_size, sizeof(cb_logsink_table));
        auto r = record("new plugin");
        EXPECT_EQ(inst->logsink()->write(inst->handle(), &r), CB_OK);
    }
    EXPECT_NE(read_file(out).find("new plugin"), std::string::npos);
}

TEST_F(registry_test, CreateFailureCarriesThePluginsReason) {
    // Both variants carry a plugin named "testsink": one registry each.
    core::registry fails(*db, only({variant_dir("create_fails")}));
    fails.scan();
    try {
        fails.create(CB_KIND_LOGSINK, "testsink");
        FAIL() << "create should have failed";
    } catch (const core::error& e) {
        EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("create refused on purpose"), std::string::npos) << e.what();
    }
    core::registry throws(*db, only({variant_dir("create_throws")}));
    throws.scan();
    try {
        throws.create(CB_KIND_LOGSINK, "testsink");
        FAIL() << "create should have failed";
    } catch (const core::error& e) {
        EXPECT_EQ(e.status(), CB_ERR_INTERNAL);
        EXPECT_NE(std::string(e.what()).find("constructor threw on purpose"), std::string::npos) << e.what();
    }
}

TEST_F(registry_test, UnknownPluginNamesTheAvailableOnes) {
    core::registry reg(*db, only({variant_dir("good")}));
    reg.scan();
    try {
        reg.create(CB_KIND_LOGSINK, "nosuch");
        FAIL();
    } catch (const core::error& e) {
        EXPECT_EQ(e.status(), CB_ERR_NOT_FOUND);
        EXPECT_NE(std::string(e.what()).find("testsink"), std::string::npos);
    }
}

}  // namespace
}  // namespace cudabridge::test

// The C API (cb_log.h) over the process-wide front end, driven through callbacks; the seed's
// usage is exercised from a real C11 translation unit (c_api_from_c.c).
#include <cb_log.h>

#include <cudabridge/core/process_log.hpp>

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

extern "C" int cb_log_test_from_c(void);

namespace {

struct seen {
    cb_log_level level;
    int category;
    std::string category_name;
    std::string message;
    bool operator==(const seen&) const = default;
};

struct collector {
    std::mutex m;
    std::vector<seen> v;
    std::vector<seen> take() {
        std::lock_guard lk(m);
        return std::exchange(v, {});
    }
};

void collect(cb_log_level level, int category, const char* category_name, const char* message, void* user) {
    auto* c = static_cast<collector*>(user);
    std::lock_guard lk(c->m);
    c->v.push_back({level, category, category_name, message});
}

std::ostream& operator<<(std::ostream& os, const seen& s) {
    return os << "{" << s.level << ", " << s.category << ", " << s.category_name << ", \"" << s.message << "\"}";
}

class CApi : public ::testing::Test {
protected:
    void SetUp() override {
        cudabridge::core::log::process_front_end().restart();  // after another test's shutdown
        cb_log_set_level(CB_LOG_INFO);
        id_ = cb_log_add_callback(&collect, &c_);
        ASSERT_GT(id_, 0);
    }
    void TearDown() override {
        cb_log_flush();  // nothing of this test's may reach the next test's callback
        cb_log_remove_callback(id_);
    }
    collector c_;
    int id_ = 0;
};

}  // namespace

TEST_F(CApi, SeedUsageFromC) {
    EXPECT_EQ(cb_log_test_from_c(), 1);
    cb_log_flush();
    std::vector<seen> want{
        {CB_LOG_INFO, CB_LOG_CAT_DRIVER, "DRIVER", "GPU initialized: RTX 4090"},
        {CB_LOG_ERROR, CB_LOG_CAT_EGPU, "EGPU", "Connection lost: cable unplugged"},
        {CB_LOG_WARN, CB_LOG_CAT_MEMORY, "MEMORY", "High VRAM usage: 87.5%"},
        {CB_LOG_DEBUG, CB_LOG_CAT_EGPU, "EGPU", "now shown: 1"},
        {CB_LOG_INFO, CB_LOG_CAT_PCIE, "PCIE", "direct write"},
        {CB_LOG_FATAL, CB_LOG_CAT_GENERAL, "GENERAL", "no arguments"},
    };
    EXPECT_EQ(c_.take(), want);
    EXPECT_EQ(cb_log_get_category_level(CB_LOG_CAT_EGPU), CB_LOG_DEBUG);
}

TEST_F(CApi, LevelsPerCategory) {
    EXPECT_FALSE(cb_log_is_enabled(CB_LOG_CAT_CUDA, CB_LOG_DEBUG));
    EXPECT_TRUE(cb_log_is_enabled(CB_LOG_CAT_CUDA, CB_LOG_INFO));
    cb_log_set_category_level(CB_LOG_CAT_CUDA, CB_LOG_TRACE);
    EXPECT_TRUE(cb_log_is_enabled(CB_LOG_CAT_CUDA, CB_LOG_TRACE));
    EXPECT_FALSE(cb_log_is_enabled(CB_LOG_CAT_USB4, CB_LOG_DEBUG));
    cb_log_set_category_level(CB_LOG_CAT_USB4, CB_LOG_OFF);
    CB_LOG_FATAL(CB_LOG_CAT_USB4, "silenced");
    CB_LOG_TRACE(CB_LOG_CAT_CUDA, "trace %d", 7);
    cb_log_set_level(CB_LOG_ERROR);
    CB_LOG_WARN(CB_LOG_CAT_CUDA, "now below the level");
    CB_LOG_ERROR(CB_LOG_CAT_USB4, "USB4 back on at ERROR");
    cb_log_flush();
    std::vector<seen> want{
        {CB_LOG_TRACE, CB_LOG_CAT_CUDA, "CUDA", "trace 7"},
        {CB_LOG_ERROR, CB_LOG_CAT_USB4, "USB4", "USB4 back on at ERROR"},
    };
    EXPECT_EQ(c_.take(), want);
}

TEST_F(CApi, ArgumentsAreNotEvaluatedWhenDisabled) {
    int n = 0;
    CB_LOG_DEBUG(CB_LOG_CAT_CLI, "%d", ++n);
    CB_LOG_TRACE(CB_LOG_CAT_CLI, "%d", ++n);
    EXPECT_EQ(n, 0);
    CB_LOG_INFO(CB_LOG_CAT_CLI, "%d", ++n);
    EXPECT_EQ(n, 1);
}

TEST_F(CApi, RuntimeCategory) {
    int id = cb_log_register_category("TEST_C_API");
    ASSERT_GE(id, CB_LOG_CAT_BUILTIN_COUNT);
    EXPECT_EQ(cb_log_register_category("test_c_api"), id);
    EXPECT_STREQ(cb_log_category_name(id), "TEST_C_API");
    EXPECT_EQ(cb_log_register_category(nullptr), -1);
    EXPECT_EQ(cb_log_register_category("bad name"), -1);
    EXPECT_EQ(cb_log_category_name(-1), nullptr);
    CB_LOG_WARN(id, "custom %s", "category");
    cb_log_set_category_level(id, CB_LOG_ERROR);
    CB_LOG_WARN(id, "filtered");
    cb_log_flush();
    EXPECT_EQ(c_.take(), (std::vector<seen>{{CB_LOG_WARN, id, "TEST_C_API", "custom category"}}));
}

TEST_F(CApi, LongMessagesAreFormattedWhole) {
    std::string big(3000, 'q');
    CB_LOG_INFO(CB_LOG_CAT_GENERAL, "<%s>", big.c_str());
    cb_log_flush();
    auto got = c_.take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].message, "<" + big + ">");
}

TEST_F(CApi, BadArgumentsAreHarmless) {
    cb_log_set_category_level(-3, CB_LOG_DEBUG);
    cb_log_set_category_level(1000, CB_LOG_DEBUG);
    cb_log_set_category_level(CB_LOG_CAT_CLI, 42);
    cb_log_set_level(-1);
    EXPECT_EQ(cb_log_get_category_level(CB_LOG_CAT_CLI), CB_LOG_INFO);
    cb_log_write(CB_LOG_INFO, CB_LOG_CAT_GENERAL, nullptr, 0, nullptr);
    cb_log_write(CB_LOG_INFO, 555, nullptr, 0, "unknown category -> GENERAL");
    EXPECT_EQ(cb_log_add_callback(nullptr, nullptr), -1);
    cb_log_remove_callback(123456);
    cb_log_flush();
    EXPECT_EQ(c_.take(),
              (std::vector<seen>{{CB_LOG_INFO, CB_LOG_CAT_GENERAL, "GENERAL", "unknown category -> GENERAL"}}));
}

TEST_F(CApi, RemovedCallbackIsNotCalled) {
    collector other;
    int id = cb_log_add_callback(&collect, &other);
    ASSERT_GT(id, 0);
    EXPECT_NE(id, id_);
    CB_LOG_INFO(CB_LOG_CAT_GENERAL, "both");
    cb_log_flush();
    cb_log_remove_callback(id);
    CB_LOG_INFO(CB_LOG_CAT_GENERAL, "first only");
    cb_log_flush();
    EXPECT_EQ(other.take().size(), 1u);
    EXPECT_EQ(c_.take().size(), 2u);
}

TEST_F(CApi, ShutdownDeliversEverythingThenDrops) {
    for (int i = 0; i < 1000; ++i) CB_LOG_INFO(CB_LOG_CAT_GENERAL, "n=%d", i);
    cb_log_shutdown();
    auto got = c_.take();
    ASSERT_EQ(got.size(), 1000u);
    EXPECT_EQ(got.back().message, "n=999");
    EXPECT_FALSE(cb_log_is_enabled(CB_LOG_CAT_GENERAL, CB_LOG_FATAL));
    CB_LOG_ERROR(CB_LOG_CAT_GENERAL, "after shutdown");
    cb_log_write(CB_LOG_FATAL, CB_LOG_CAT_GENERAL, __FILE__, __LINE__, "after shutdown");
    cb_log_flush();
    cb_log_shutdown();
    EXPECT_TRUE(c_.take().empty());
}

// The process-wide category registry and the level / overflow-policy names.
#include <cudabridge/core/log.hpp>

#include <cb_log.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

namespace lg = cudabridge::core::log;

TEST(LogCategories, BuiltinsHaveTheCApiIds) {
    const std::pair<const char*, int> builtins[] = {
        {"GENERAL", CB_LOG_CAT_GENERAL}, {"DRIVER", CB_LOG_CAT_DRIVER}, {"EGPU", CB_LOG_CAT_EGPU},
        {"MEMORY", CB_LOG_CAT_MEMORY},   {"PCIE", CB_LOG_CAT_PCIE},     {"USB4", CB_LOG_CAT_USB4},
        {"CUDA", CB_LOG_CAT_CUDA},       {"CLI", CB_LOG_CAT_CLI},       {"PYTHON", CB_LOG_CAT_PYTHON},
    };
    for (auto [name, id] : builtins) {
        EXPECT_EQ(lg::find_category(name), id) << name;
        EXPECT_EQ(lg::category_id(name), id) << name;
        EXPECT_EQ(lg::category_name(id), name);
        EXPECT_STREQ(lg::category_c_name(id), name);
    }
    EXPECT_EQ(CB_LOG_CAT_BUILTIN_COUNT, 9);
    auto names = lg::category_names();
    ASSERT_GE(names.size(), 9u);
    EXPECT_EQ(names[0], "GENERAL");
    EXPECT_EQ(names[8], "PYTHON");
    EXPECT_EQ(lg::find_category("driver"), CB_LOG_CAT_DRIVER);  // case-insensitive
}

TEST(LogCategories, RegisteredAtRunTime) {
    EXPECT_FALSE(lg::find_category("TEST_NEVER_REGISTERED").has_value());
    int id = lg::category_id("TEST_STORAGE");
    ASSERT_GE(id, CB_LOG_CAT_BUILTIN_COUNT);
    ASSERT_LT(id, lg::max_categories);
    EXPECT_EQ(lg::category_id("test_storage"), id);  // same category
    EXPECT_EQ(lg::find_category("Test_Storage"), id);
    EXPECT_EQ(lg::category_name(id), "TEST_STORAGE");  // spelled as registered
    auto names = lg::category_names();
    EXPECT_NE(std::find(names.begin(), names.end(), "TEST_STORAGE"), names.end());

    EXPECT_EQ(lg::category_name(lg::max_categories + 3), "");
    EXPECT_EQ(lg::category_c_name(-1), nullptr);

    // Invalid names are refused.
    EXPECT_EQ(lg::category_id(""), -1);
    EXPECT_EQ(lg::category_id("has space"), -1);
    EXPECT_EQ(lg::category_id(std::string(33, 'A')), -1);
    EXPECT_FALSE(lg::find_category("").has_value());
}

TEST(LogCategories, ConcurrentRegistrationGivesOneIdPerName) {
    std::vector<std::thread> ts;
    std::vector<std::vector<int>> ids(4);
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&ids, t] {
            for (int k = 0; k < 5; ++k)
                ids[static_cast<size_t>(t)].push_back(lg::category_id("TEST_CONC_" + std::to_string(k)));
        });
    for (auto& th : ts) th.join();
    for (int t = 1; t < 4; ++t) EXPECT_EQ(ids[static_cast<size_t>(t)], ids[0]);
    std::set<int> distinct(ids[0].begin(), ids[0].end());
    EXPECT_EQ(distinct.size(), 5u);
}

TEST(LogLevels, ParseAndName) {
    EXPECT_EQ(lg::parse_level("TRACE"), CB_LOG_TRACE);
    EXPECT_EQ(lg::parse_level("debug"), CB_LOG_DEBUG);
    EXPECT_EQ(lg::parse_level("Info"), CB_LOG_INFO);
    EXPECT_EQ(lg::parse_level("warn"), CB_LOG_WARN);
    EXPECT_EQ(lg::parse_level("warning"), CB_LOG_WARN);
    EXPECT_EQ(lg::parse_level("ERROR"), CB_LOG_ERROR);
    EXPECT_EQ(lg::parse_level("fatal"), CB_LOG_FATAL);
    EXPECT_EQ(lg::parse_level("off"), CB_LOG_OFF);
    EXPECT_FALSE(lg::parse_level("verbose").has_value());
    EXPECT_FALSE(lg::parse_level("").has_value());
    for (cb_log_level l = CB_LOG_TRACE; l <= CB_LOG_OFF; ++l) EXPECT_EQ(lg::parse_level(lg::level_name(l)), l);
    EXPECT_STREQ(lg::level_name(CB_LOG_WARN), "WARN");
    EXPECT_STREQ(lg::level_name(99), "UNKNOWN");
}

TEST(LogOverflowPolicy, ParseAndName) {
    using lg::overflow_policy;
    for (auto p : {overflow_policy::block, overflow_policy::drop_newest, overflow_policy::drop_oldest})
        EXPECT_EQ(lg::parse_overflow_policy(lg::to_string(p)), p);
    EXPECT_EQ(lg::parse_overflow_policy("drop-oldest"), overflow_policy::drop_oldest);
    EXPECT_EQ(lg::parse_overflow_policy("BLOCK"), overflow_policy::block);
    EXPECT_FALSE(lg::parse_overflow_policy("drop").has_value());
    EXPECT_STREQ(lg::to_string(overflow_policy::drop_newest), "drop_newest");
}

// What `config set` refuses from a parameter's declaration: choices and folders (ABI 1.5).
#include <cudabridge/core/parameters.hpp>
#include <cudabridge/host_services.h>

#include "store_test_util.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>

using namespace cudabridge::core;

namespace {

parameter_row choice_param() {
    parameter_row p;
    p.name = "usb4.max_payload";
    p.owner = "usb4";
    p.type = CB_PARAM_INT;
    p.default_value = "256";
    p.choices = "128,256,512";
    return p;
}

parameter_row folder_param() {
    parameter_row p;
    p.name = "file.dir";
    p.owner = "file";
    p.type = CB_PARAM_STRING;
    p.flags = CB_PARAM_FLAG_DIRECTORY;
    return p;
}

TEST(ParameterCheck, AValueOutsideTheChoicesIsRefusedNamingThem) {
    const auto why = check_parameter_value(choice_param(), "300");
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("usb4.max_payload"), std::string::npos) << *why;
    EXPECT_NE(why->find("one of: 128, 256, 512"), std::string::npos) << *why;
}

TEST(ParameterCheck, EachChoiceIsAcceptedExactly) {
    for (const char* v : {"128", "256", "512"}) EXPECT_FALSE(check_parameter_value(choice_param(), v)) << v;
    EXPECT_TRUE(check_parameter_value(choice_param(), "25"));    // a prefix of a choice
    EXPECT_TRUE(check_parameter_value(choice_param(), "1024"));  // a longer string holding one
}

TEST(ParameterCheck, NoChoicesMeansAnyValueOfTheType) {
    parameter_row p = choice_param();
    p.choices.clear();
    EXPECT_FALSE(check_parameter_value(p, "300"));
    EXPECT_TRUE(check_parameter_value(p, "abc"));  // still an integer parameter
}

TEST(ParameterCheck, AFolderIsCreatedWhenMissing) {
    cb_store_test::temp_dir dir;
    const auto logs = dir.path() / "a" / "b" / "logs";
    EXPECT_FALSE(prepare_directory_value(folder_param(), logs.string()));
    EXPECT_TRUE(std::filesystem::is_directory(logs));
}

TEST(ParameterCheck, AFolderThatCannotBeCreatedOrIsNotAFolderIsRefused) {
    cb_store_test::temp_dir dir;
    const auto file = dir.path() / "plain";
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_TRUE(f);
    std::fclose(f);
    EXPECT_TRUE(prepare_directory_value(folder_param(), "/proc/nonexistent/x"));
    EXPECT_TRUE(prepare_directory_value(folder_param(), file.string()));
    EXPECT_TRUE(prepare_directory_value(folder_param(), (file / "under").string()));
    EXPECT_TRUE(prepare_directory_value(folder_param(), "relative/logs"));
    EXPECT_TRUE(prepare_directory_value(folder_param(), ""));
}

TEST(ParameterCheck, OnlyFolderParametersAreChecked) {
    parameter_row p = folder_param();
    p.flags = 0;
    EXPECT_FALSE(prepare_directory_value(p, "/proc/nonexistent/x"));
}

}  // namespace

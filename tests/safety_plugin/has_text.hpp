// EXPECT_TRUE(has_text(reason, "0x1002")): a substring check that prints the whole text on
// failure (GoogleTest without gMock).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace cudabridge::test {

inline ::testing::AssertionResult has_text(std::string_view text, std::string_view part) {
    if (text.find(part) != std::string_view::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

}  // namespace cudabridge::test

// What the CLI shows of users' and devices' text on a terminal: control characters as visible
// escapes (a logged message must not retitle the window or clear the screen), the rest as it is.
#include "terminal_text.hpp"

#include <gtest/gtest.h>

namespace cudabridge::test {
namespace {

TEST(TerminalText, ControlCharactersBecomeVisibleEscapes) {
    EXPECT_EQ(cli::escape_controls("\x1b]0;T\a\x1b[2J"), "\\x1b]0;T\\x07\\x1b[2J");
    EXPECT_EQ(cli::escape_controls("line\nnext\r\x7f"), "line\\x0anext\\x0d\\x7f");
    EXPECT_EQ(cli::escape_controls("\xc2\x9b"
                                   "31m"),
              "\\u009b31m")
        << "C1 CSI in UTF-8";
}

TEST(TerminalText, OrdinaryTextAndUtf8StayAsTheyAre) {
    EXPECT_EQ(cli::escape_controls("RTX 5090\tok"), "RTX 5090\tok");
    EXPECT_EQ(cli::escape_controls("온도 90 °C — 정상"), "온도 90 °C — 정상");
}

}  // namespace
}  // namespace cudabridge::test

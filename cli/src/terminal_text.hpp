// Text that came from users or devices (log messages, event messages, names), made safe to show on
// a terminal: a message must not be able to retitle the window, clear the screen or move the
// cursor. Control characters become visible escapes; output to a pipe or file stays exact.
#pragma once

#include <string>
#include <string_view>

namespace cudabridge::cli {

// `text` with C0 controls (but tab), DEL and C1 controls (U+0080..U+009F) written as \x1b,
// \x7f, \u009b. Everything else, UTF-8 included, is kept.
std::string escape_controls(std::string_view text);

// escape_controls(text) when standard output is a terminal, else `text` as it is.
std::string for_stdout(std::string_view text);

}  // namespace cudabridge::cli

#include "console_sink.hpp"

#include "../support/line_formatter.hpp"
#include "../support/sink_params.hpp"

#include <spdlog/sinks/ansicolor_sink.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include <unistd.h>

namespace cudabridge::plugins::logging {

cb_log_level console_sink::parse_level(const std::string& level_name) {
    static const char* const names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
    for (int i = 0; i < 6; ++i)
        if (level_name == names[i]) return static_cast<cb_log_level>(CB_LOG_TRACE + i);
    return CB_LOG_TRACE;
}

bool console_sink::decide_color(const std::string& mode) {
    if (mode == "always") return true;
    if (mode == "never") return false;
    // auto: NO_COLOR (any value, https://no-color.org) wins; then only a terminal gets colour.
    if (std::getenv("NO_COLOR") != nullptr) return false;
    if (::isatty(STDERR_FILENO) != 1) return false;
    const char* term = std::getenv("TERM");
    return term == nullptr || std::strcmp(term, "dumb") != 0;
}

console_sink::console_sink(const sdk::host& h, const sdk::config& c) : spdlog_backed_sink(h, "console sink") {
    sink_params p(h, c, identity.name);
    p.declare_choice("color", "auto",
                     "colour the level of each line: auto (only when stderr is a terminal and "
                     "NO_COLOR is not set), always, or never (what --no-color passes)",
                     {"auto", "always", "never"});
    const bool color = decide_color(p.choice("color"));
    p.declare_choice("level", "TRACE",
                     "the lowest level this sink shows (TRACE ... FATAL); the front end's log.level "
                     "still applies first. cudabridge-cli passes WARN unless -v is given",
                     {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"});
    set_min_level(parse_level(p.choice("level")));

    auto sink = std::make_shared<spdlog::sinks::ansicolor_stderr_sink_mt>(color ? spdlog::color_mode::always
                                                                                : spdlog::color_mode::never);
    sink->set_formatter(std::make_unique<line_formatter>());
    attach(std::move(sink));
}

}  // namespace cudabridge::plugins::logging

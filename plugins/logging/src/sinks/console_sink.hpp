// console: one coloured line per record on stderr.
#pragma once

#include "spdlog_backed_sink.hpp"

namespace cudabridge::plugins::logging {

class console_sink final : public spdlog_backed_sink {
public:
    static constexpr sdk::plugin_identity identity{
        "console", CB_MAKE_VERSION(1, 0, 0), "MIT",
        "log lines on stderr, level in ANSI colour (param color=auto|always|never; auto honours "
        "NO_COLOR and whether stderr is a terminal; param level=TRACE..FATAL, the lowest shown)"};

    console_sink(const sdk::host& h, const sdk::config& c);

    // auto|always|never, the environment and whether fd 2 is a terminal -> colour or not.
    static bool decide_color(const std::string& mode);
    // "TRACE" ... "FATAL" -> the level (the names are checked by the caller).
    static cb_log_level parse_level(const std::string& level_name);
};

}  // namespace cudabridge::plugins::logging

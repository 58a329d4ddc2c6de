// file: rotating log file (spdlog's rotating_file_sink_mt): <dir>/<name>, rotated by size into
// <stem>.1<ext> .. <stem>.<max_files><ext>.
#pragma once

#include "spdlog_backed_sink.hpp"

namespace cudabridge::plugins::logging {

class file_sink final : public spdlog_backed_sink {
public:
    static constexpr sdk::plugin_identity identity{
        "file", CB_MAKE_VERSION(1, 0, 0), "MIT",
        "rotating log file, 10 MB x 5 by default, in the host's log folder (" CB_DEFAULT_LOG_DIR "/cudabridge.log)"};

    static constexpr long long default_max_size = 10LL * 1024 * 1024;
    static constexpr long long default_max_files = 5;

    file_sink(const sdk::host& h, const sdk::config& c);
};

}  // namespace cudabridge::plugins::logging

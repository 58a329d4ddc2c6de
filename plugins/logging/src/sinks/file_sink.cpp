#include "file_sink.hpp"

#include "../support/filesystem.hpp"
#include "../support/line_formatter.hpp"
#include "../support/sink_params.hpp"

#include <spdlog/sinks/rotating_file_sink.h>

#include <cerrno>
#include <memory>

namespace cudabridge::plugins::logging {

file_sink::file_sink(const sdk::host& h, const sdk::config& c) : spdlog_backed_sink(h, "file sink") {
    sink_params p(h, c, identity.name);
    p.declare_directory("dir", h.path(CB_PATH_LOG_DIR).value_or(CB_DEFAULT_LOG_DIR),
                        "folder of the log files, created (0700) when missing; default: the host's "
                        "log folder");
    p.declare_text("name", "cudabridge.log",
                   "name of the current log file; rotated files insert .1, .2, ... before the "
                   "extension");
    p.declare_int("max_size", default_max_size, 1024, 1LL << 40, "bytes a log file may reach before it is rotated");
    p.declare_int("max_files", default_max_files, 0, 10000,
                  "rotated files kept besides the current one (the oldest is deleted)");

    const std::string dir = p.text("dir");
    const std::string file = p.text("name");
    const auto max_size = static_cast<size_t>(p.integer("max_size"));
    const auto max_files = static_cast<size_t>(p.integer("max_files"));
    if (file.empty() || file.find('/') != std::string::npos) {
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "file sink: name = '" + file + "' must be a plain file name");
    }

    ensure_directory(dir, "file sink");
    const std::string path = dir + (dir.back() == '/' ? "" : "/") + file;
    std::shared_ptr<spdlog::sinks::rotating_file_sink_mt> sink;
    try {
        errno = 0;
        spdlog::file_event_handlers private_files;
        private_files.after_open = [](const spdlog::filename_t&, std::FILE* f) { make_private(f); };
        sink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(path, max_size, max_files, false, private_files);
    } catch (const spdlog::spdlog_ex& e) {
        throw sdk::status_error(status_from_errno(errno), "file sink: cannot open '" + path + "': " + e.what());
    }
    sink->set_formatter(std::make_unique<line_formatter>());
    attach(std::move(sink));
}

}  // namespace cudabridge::plugins::logging

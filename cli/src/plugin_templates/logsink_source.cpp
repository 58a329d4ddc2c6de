#include "plugin_templates/template_sources.hpp"

namespace cudabridge::cli::templates {

const char* logsink_source() {
    return R"cbt(// @NAME@: a log sink. It appends one "time level category message" line per record to the file
// named by its `path` parameter (`--log-sink @NAME@:path=/tmp/@NAME@.log`), or to stderr when
// `path` is empty.
#include <cudabridge/cpp/plugin.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

namespace sdk = cudabridge::sdk;

const char* level_name(cb_log_level level) {
    static const char* const names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
    return level >= CB_LOG_TRACE && level <= CB_LOG_FATAL ? names[level] : "?";
}

class @CLASS@ final : public sdk::logsink {
public:
    static constexpr sdk::plugin_identity identity{
        "@NAME@", CB_MAKE_VERSION(0, 1, 0), "MIT", "@NAME@: log records as text lines"};

    @CLASS@(const sdk::host& h, const sdk::config&) : logsink(h) {
        h.declare(CB_PARAM_STRING, "path", "", "file the records are appended to; empty: stderr");
        const std::string path = h.param_or("path", "");
        file_ = path.empty() ? stderr : std::fopen(path.c_str(), "a");
        if (file_ == nullptr)
            throw sdk::status_error(CB_ERR_PERMISSION, "cannot open " + path + ": " + std::strerror(errno));
    }
    ~@CLASS@() override { close(); }

    // write, flush and close come from the host's one logging thread: no lock needed.
    cb_status write(const cb_log_record& r) override {
        const long long seconds = static_cast<long long>(r.time_ns / 1000000000);
        const int millis = static_cast<int>(r.time_ns / 1000000 % 1000);
        std::fprintf(file_, "%lld.%03d %s %s %s\n", seconds, millis, level_name(r.level),
                     r.category ? r.category : "GENERAL", r.message);
        return CB_OK;
    }
    cb_status flush() override { return std::fflush(file_) == 0 ? CB_OK : CB_ERR_INTERNAL; }
    void close() override {
        if (file_ != nullptr && file_ != stderr) std::fclose(file_);
        file_ = nullptr;
    }

private:
    std::FILE* file_ = nullptr;
};

}  // namespace

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<@CLASS@>())
)cbt";
}

}  // namespace cudabridge::cli::templates

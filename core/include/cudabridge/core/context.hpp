// The core wired together for an application: the store, the log front end with its sink
// plugins, and the plugin registry. The CLI, the C logging API and (later) the host runtime
// start from one of these.
#pragma once

#include <cudabridge/core/log.hpp>
#include <cudabridge/core/registry.hpp>
#include <cudabridge/core/store.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::core {

// "file" or "file:max_size=1048576,max_files=3"
struct sink_spec {
    std::string name;
    config_entries config;
};
// Parses a --log-sink value; nullopt and `error` set when malformed.
std::optional<sink_spec> parse_sink_spec(std::string_view text, std::string& error);

struct context_options {
    std::optional<std::filesystem::path> database;  // --db; default_database_path() otherwise
    search_options search;
    std::optional<std::vector<sink_spec>> log_sinks;  // --log-sink; else setting log.sinks
    bool no_color = false;                            // passed to the console sink as color=never
    std::optional<cb_log_level> level;                // -v: DEBUG for every category
    std::optional<cb_log_level> console_level;        // passed to the console sink as level=NAME
    bool start_logging = true;
    // Use this front end (e.g. the process-wide one of the C API) instead of creating one. The
    // context attaches its sinks to it and detaches them again when destroyed.
    log::front_end* external_log = nullptr;
};

class context {
public:
    explicit context(context_options options);
    ~context();  // drains the log queue, then closes and destroys the sinks
    context(const context&) = delete;
    context& operator=(const context&) = delete;

    store& db() noexcept { return *store_; }
    log::front_end& log() noexcept { return *log_; }
    registry& plugins() noexcept { return *registry_; }

    // Sinks that could not be started, with the reason (start-up goes on without them).
    const std::vector<std::string>& sink_failures() const noexcept { return sink_failures_; }
    std::vector<std::string> active_sinks() const;

    // Re-reads log.level, log.level.<CAT> and log.overflow_policy from the store.
    void apply_log_settings();

private:
    void start_sinks(const std::vector<sink_spec>& sinks);

    context_options options_;
    std::unique_ptr<store> store_;
    std::unique_ptr<log::front_end> own_log_;
    log::front_end* log_ = nullptr;
    std::unique_ptr<registry> registry_;
    std::vector<std::unique_ptr<plugin_instance>> sinks_;
    std::vector<std::string> sink_failures_;
};

}  // namespace cudabridge::core

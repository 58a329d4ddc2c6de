// The frame of cudabridge-cli: global options, the command table, and the lazily opened core.
// A command is a name, an alias, help text and a function; later features only add entries.
#pragma once

#include "exit_codes.hpp"

#include <cudabridge/core/context.hpp>
#include <cudabridge/host/runtime.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudabridge::cli {

struct global_options {
    bool verbose = false;
    bool json = false;
    bool no_color = false;
    std::optional<int> device;
    bool force = false;
    bool sim = false;  // --sim: the transport's simulated fabric, whatever hardware is present
    std::optional<std::string> db;
    std::vector<std::string> plugin_paths;
    std::optional<std::string> transport, gpu, safety;
    std::vector<std::string> log_sinks;
};

// Thrown for command-line mistakes; main() prints it with the usage hint and exits 2.
class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class app;

struct command {
    std::string name;
    std::string alias;     // "" when none
    std::string summary;   // one line for `help`
    std::string usage;     // "plugins list | info NAME | verify PATH"
    std::string details;   // paragraphs for `help NAME`
    bool needs_log_sinks;  // start the log sink plugins before running
    std::function<int(app&, const std::vector<std::string>&)> run;
};

class app {
public:
    explicit app(global_options options);
    ~app();

    const global_options& options() const noexcept { return options_; }
    // The core (store, log, registry), opened on first use.
    core::context& core(bool with_log_sinks);
    // Color on stdout: off with --no-color, NO_COLOR, --json, or when stdout is not a terminal.
    bool color() const;

    // The session options the global options give (plugins, store, log levels, --sim).
    host::session_options session_options() const;
    // A host runtime attached to every eGPU some process connected, made on first use; it never
    // connects one itself (that is `connect`'s job).
    host::runtime& runtime();
    // For `reset --hard` and `disconnect --force`, before the runtime is made: a connected GPU
    // that does not answer gets a function-level reset through the link when it is attached.
    void reset_unanswering_gpus() { reset_unanswering_ = true; }
    // Before runtime(): a read-only command joins existing connections and records nothing
    // (host::connect_options::observe).
    void read_only() { read_only_ = true; }
    // With no device attached: why, when an eGPU is connected but could not be reached (its GPU
    // does not answer, its IOMMU has no room), and what to do; empty when none is connected.
    std::string unreachable_egpu();
    // The device -d N names (0 by default) among those; cli_error(exit_no_device) when none.
    int device_index();
    host::device& device() { return runtime().device(device_index()); }
    // The devices a command that covers several shows: the one -d names, else every connected
    // one; cli_error(exit_no_device) when there is none.
    std::vector<int> device_indices();
    // A session (store, plugins, the simulated fabric wired) for commands that look at the fabric
    // without attaching to a device: the runtime's when one is open, else one of its own.
    host::session& session();
    // Closes the runtime (detaches; the connections stay up).
    void close_runtime() { runtime_.reset(); }

    static const std::vector<command>& commands();
    static const command* find_command(const std::string& name_or_alias);

private:
    std::vector<core::sink_spec> sink_specs() const;  // --log-sink's, parsed (a bad one: usage error)
    global_options options_;
    std::unique_ptr<core::context> core_;
    std::unique_ptr<host::session> session_;
    std::unique_ptr<host::runtime> runtime_;
    bool reset_unanswering_ = false;
    bool read_only_ = false;
};

// Entry point used by main(): parses argv and runs the command; returns the exit code.
int run_cli(int argc, char** argv);
// Throws a usage_error naming the first sink of `sinks` that no logsink plugin provides.
void require_sinks(core::context& ctx, const std::vector<core::sink_spec>& sinks);

// Commands (one file each under commands/).
command help_command();
command version_command();
command plugins_command();
command log_command();
command config_command();
command connect_command();
command disconnect_command();
command info_command();
command status_command();
command devices_command();
command forget_command();
command reset_command();
command history_command();
command sim_command();
command monitor_command();
command benchmark_command();
command diag_command();
command completion_command();
command profile_command();
command run_command();
command query_command();
command summary_command();
command pmon_command();
command domains_command();
command authorize_command();
command exporter_command();
// `plugins new` (commands/plugins_new.cpp).
int run_plugins_new(app& a, const std::vector<std::string>& args);
// What completion offers after `config get|set` (commands/config.cpp), after `profile show|set|...`
// and after `profile set MODEL` (commands/profile.cpp), and after `sim fault` (commands/sim.cpp).
std::vector<std::string> config_keys(app& a);
std::vector<std::string> profile_models(app& a);
std::vector<std::string> profile_keys(app& a, const std::string& model);
const std::vector<std::string>& sim_fault_kinds();
// config's GPU subcommands (commands/gpu_settings.cpp).
bool is_gpu_setting_subcommand(const std::string& sub);
int run_gpu_setting(app& a, const std::vector<std::string>& args);

}  // namespace cudabridge::cli

namespace cudabridge::cli {
// The global options block as `help` prints it.
std::string global_options_help();
}  // namespace cudabridge::cli

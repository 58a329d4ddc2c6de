// A session: the store, the log, the plugin registry and the plugins one process uses (a
// transport, a GPU family, a safety policy), plus the simulated fabric wired up: every simulated
// enclosure gets an endpoint model of its GPU from the GPU family.
//
// Which plugins: a command-line flag, else the environment (CUDABRIDGE_TRANSPORT, CUDABRIDGE_GPU,
// CUDABRIDGE_SAFETY, CUDABRIDGE_LOG_SINKS), else the stored setting (session.transport,
// session.gpu, session.safety, log.sinks), else the defaults (usb4, nvidia, standard, console +
// file + sqlite). Each choice remembers where it came from.
#pragma once

#include <cudabridge/core/context.hpp>
#include <cudabridge/core/registry.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::host {

// One plugin choice and where it came from: "flag", "environment", "setting" or "default".
struct choice {
    std::string value;
    std::string origin;
};

struct plugin_selection {
    choice transport, gpu, safety, log_sinks;
};

// What a caller asks for explicitly (command-line flags); empty fields are not given.
struct selection_flags {
    std::optional<std::string> transport, gpu, safety, log_sinks;
};

// Applies the precedence; `getenv` is injectable for tests (nullptr: the process environment).
plugin_selection resolve_selection(const selection_flags& flags, core::store& db,
                                   const std::function<const char*(const char*)>& getenv = nullptr);

// A choice may carry the plugin instance's configuration after its name, as the plugins' READMEs
// show: "standard:thermal_limit=85,max_retry_count=5". Moves those entries into `config` (ahead of
// what is there: they were asked for last) and leaves the bare name in the choice; throws
// core::error(CB_ERR_INVALID_ARGUMENT) naming an entry that is not KEY=VALUE.
void take_instance_config(choice& c, core::config_entries& config);

struct session_options {
    std::optional<std::filesystem::path> database;    // --db
    std::vector<std::filesystem::path> plugin_paths;  // --plugin-path
    selection_flags flags;
    bool no_color = false;
    std::optional<cb_log_level> level;
    std::optional<cb_log_level> console_level;  // the console sink's own floor (CLI: WARN)
    bool use_environment = true;
    // Per-plugin configuration entries (e.g. the safety policy's overrides from
    // egpu_safety_init), by plugin kind.
    core::config_entries transport_config, gpu_config, safety_config;
};

class simulated_fabric_wiring;  // the endpoint models this session attached

class session {
public:
    // Opens everything; throws core::error naming what failed (a plugin not found, a store
    // that cannot be opened). A simulated enclosure whose model cannot be built is logged and
    // left empty, not fatal.
    explicit session(session_options options);
    ~session();  // detaches the endpoint models, destroys the plugins, closes the store
    session(const session&) = delete;
    session& operator=(const session&) = delete;

    core::context& context() noexcept { return *context_; }
    // The host's own connection to the store (the registry's plugins use the context's): lock
    // store_mutex() around every use from a thread other than the one that built the session.
    core::store& db() noexcept { return *host_db_; }
    core::log::front_end& log() noexcept { return context_->log(); }
    const plugin_selection& selection() const noexcept { return selection_; }
    const session_options& options() const noexcept { return options_; }

    const cb_transport_table* transport() const noexcept { return transport_->transport(); }
    void* transport_instance() const noexcept { return transport_->handle(); }
    const cb_gpu_table* gpu() const noexcept { return gpu_->gpu(); }
    void* gpu_instance() const noexcept { return gpu_->handle(); }
    const cb_safety_table* safety() const noexcept { return safety_->safety(); }
    void* safety_instance() const noexcept { return safety_->handle(); }
    const core::plugin_info& transport_info() const noexcept { return transport_->info(); }
    const core::plugin_info& gpu_info() const noexcept { return gpu_->info(); }
    const core::plugin_info& safety_info() const noexcept { return safety_->info(); }

    // A safety parameter's effective value: this process's override, else the stored setting,
    // else the policy's declared default ("<policy>.<name>").
    std::optional<std::string> safety_parameter(std::string_view name);
    double safety_number(std::string_view name, double fallback);

    // Records an event in the store; never throws (a failure is logged).
    void record_event(const std::string& device, const std::string& category, int severity, const std::string& kind,
                      const std::string& message, const std::string& data_json = {});
    // Logs through the front end (category: CB_LOG_CAT_EGPU, ...).
    void log_line(cb_log_level level, int category, const std::string& message, const std::string& device = {});

    // Serializes use of db() by the session's threads (a store is used by one thread at a time).
    std::mutex& store_mutex() noexcept { return store_mutex_; }

    // Re-runs the wiring (after `sim plug`, say); returns how many enclosures have a model.
    size_t rewire_simulated_fabric();

    // The plugins' control entries: a JSON request ({"op": ...}) in, the JSON reply out.
    // Throws core::error with the plugin's status and message (CB_ERR_UNSUPPORTED when the
    // plugin has no control entry or does not know the op).
    std::string transport_control(const std::string& request);
    std::string gpu_control(const std::string& request);

private:
    void seed_gpu_profiles_from_family();

    session_options options_;
    std::unique_ptr<core::context> context_;
    std::unique_ptr<core::store> host_db_;
    plugin_selection selection_;
    std::unique_ptr<core::plugin_instance> transport_, gpu_, safety_;
    std::unique_ptr<simulated_fabric_wiring> wiring_;
    std::mutex store_mutex_;
};

}  // namespace cudabridge::host

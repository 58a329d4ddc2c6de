#include <cudabridge/host/session.hpp>

#include "session/host_parameters.hpp"
#include "session/simulated_fabric_wiring.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/paths.hpp>
#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/core/parameters.hpp>
#include <cudabridge/core/log.hpp>
#include <cudabridge/host/gpu_profile_seed.hpp>

#include <cb_log.h>

#include <cstdlib>
#include <sstream>

namespace cudabridge::host {
namespace {

// CUDABRIDGE_LOG_SINKS / a flag: comma-separated sink names, as the log.sinks setting.
std::vector<core::sink_spec> sink_list(const std::string& text) {
    std::vector<core::sink_spec> out;
    std::stringstream ss(text);
    std::string name;
    while (std::getline(ss, name, ','))
        if (!name.empty()) out.push_back({name, {}});
    return out;
}

core::context_options context_options_from(const session_options& o) {
    core::context_options c;
    c.database = o.database;
    c.search.extra_paths = o.plugin_paths;
    c.search.use_environment = o.use_environment;
    c.no_color = o.no_color;
    c.level = o.level;
    c.console_level = o.console_level;
    // Flag and environment are known before the store opens; the setting and the default are
    // applied by the context itself.
    if (o.flags.log_sinks && !o.flags.log_sinks->empty())
        c.log_sinks = sink_list(*o.flags.log_sinks);
    else if (const auto env = o.use_environment ? core::secure_env("CUDABRIDGE_LOG_SINKS") : std::nullopt)
        c.log_sinks = sink_list(*env);
    return c;
}

std::unique_ptr<core::plugin_instance> create_plugin(core::registry& r, cb_plugin_kind kind, const choice& c,
                                                     const core::config_entries& config) {
    if (!r.find(kind, c.value))
        throw core::error(CB_ERR_NOT_FOUND, std::string("no ") + core::kind_name(kind) + " plugin named '" + c.value +
                                                "' (chosen by " + c.origin +
                                                "); `cudabridge-cli plugins` lists what is installed");
    return r.create(kind, c.value, config);
}

}  // namespace

session::session(session_options options) : options_(std::move(options)) {
    context_ = std::make_unique<core::context>(context_options_from(options_));
    host_db_ = std::make_unique<core::store>(context_->db().path());
    try {
        declare_host_parameters(*host_db_);
    } catch (const std::exception& e) {  // a read-only store still runs a session
        log_line(CB_LOG_WARN, CB_LOG_CAT_EGPU, std::string("could not declare the session settings: ") + e.what());
    }
    selection_ = resolve_selection(
        options_.flags, context_->db(),
        options_.use_environment ? std::function<const char*(const char*)>{}
                                 : [](const char*) -> const char* { return nullptr; });
    take_instance_config(selection_.transport, options_.transport_config);
    take_instance_config(selection_.gpu, options_.gpu_config);
    take_instance_config(selection_.safety, options_.safety_config);
    auto& r = context_->plugins();
    transport_ = create_plugin(r, CB_KIND_TRANSPORT, selection_.transport, options_.transport_config);
    gpu_ = create_plugin(r, CB_KIND_GPU, selection_.gpu, options_.gpu_config);
    seed_gpu_profiles_from_family();
    safety_ = create_plugin(r, CB_KIND_SAFETY, selection_.safety, options_.safety_config);
    wiring_ = std::make_unique<simulated_fabric_wiring>(
        transport(), transport_instance(), gpu(), gpu_instance(),
        [this](cb_log_level level, const std::string& message) { log_line(level, CB_LOG_CAT_EGPU, message); },
        [this](const std::string& key) {
            std::lock_guard lock(store_mutex_);
            auto row = core::find_effective_gpu_profile_by_key(*host_db_, key);
            return row ? row->data : std::string();
        });
    wiring_->wire();
    log_line(CB_LOG_DEBUG, CB_LOG_CAT_EGPU,
             "session: transport " + selection_.transport.value + " (" + selection_.transport.origin + "), gpu " +
                 selection_.gpu.value + " (" + selection_.gpu.origin + "), safety " + selection_.safety.value + " (" +
                 selection_.safety.origin + ")");
}

session::~session() {
    wiring_.reset();
    safety_.reset();
    gpu_.reset();
    transport_.reset();
    host_db_.reset();
    context_.reset();
}

size_t session::rewire_simulated_fabric() { return wiring_->wire(); }

// The GPU family knows its model profiles; the store keeps them (with their sources) so the CLI
// and later sessions can show and match models without loading the family. Failing to seed does
// not stop the family from working: it is logged.
void session::seed_gpu_profiles_from_family() {
    try {
        std::lock_guard lock(store_mutex_);
        seed_gpu_profiles(*host_db_, gpu(), gpu_instance(), gpu_info().name);
    } catch (const std::exception& e) {
        log_line(CB_LOG_WARN, core::log::category_id("PLUGIN"),
                 "GPU model profiles of '" + gpu_info().name + "' not stored: " + e.what());
    }
}

std::optional<std::string> session::safety_parameter(std::string_view name) {
    for (const auto& [k, v] : options_.safety_config)
        if (k == name) return v;
    std::lock_guard lock(store_mutex_);
    return core::effective_value(db(), safety_info().name + "." + std::string(name));
}

double session::safety_number(std::string_view name, double fallback) {
    try {
        if (auto v = safety_parameter(name)) return std::stod(*v);
    } catch (const std::exception&) {
    }
    return fallback;
}

void session::record_event(const std::string& device, const std::string& category, int severity,
                           const std::string& kind, const std::string& message, const std::string& data_json) {
    try {
        core::event_row e;
        e.device = device;
        e.category = category;
        e.severity = severity;
        e.kind = kind;
        e.message = message;
        e.data_json = data_json;
        std::lock_guard lock(store_mutex_);
        core::add_event(db(), e);
    } catch (const std::exception& ex) {
        log_line(CB_LOG_ERROR, CB_LOG_CAT_EGPU, std::string("could not record event ") + kind + ": " + ex.what());
    }
}

void session::log_line(cb_log_level level, int category, const std::string& message, const std::string& device) {
    context_->log().log(level, category, message, device);
}

}  // namespace cudabridge::host

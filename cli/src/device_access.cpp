// How device commands reach an eGPU: a host runtime built from the global options that attaches
// to the connections made by `connect` (in this or any other process) and never makes one.
#include "app.hpp"

#include <cudabridge/core/log.hpp>

#include <cstdlib>
#include <sstream>

namespace cudabridge::cli {

host::session_options app::session_options() const {
    host::session_options o;
    if (options_.db) o.database = *options_.db;
    for (const auto& p : options_.plugin_paths) o.plugin_paths.emplace_back(p);
    o.flags.transport = options_.transport;
    o.flags.gpu = options_.gpu;
    o.flags.safety = options_.safety;
    if (!options_.log_sinks.empty()) {
        // The session takes sink names; parameters given with --log-sink apply to `log write`.
        std::string names;
        for (const auto& spec : sink_specs()) names += (names.empty() ? "" : ",") + spec.name;
        o.flags.log_sinks = names;
    }
    o.no_color = options_.no_color || std::getenv("NO_COLOR") != nullptr;
    // The CLI reports every outcome itself, so the terminal shows no log lines beside it (only a
    // FATAL one); the database and the files keep INFO and up. -v shows everything down to DEBUG.
    if (options_.verbose) {
        o.level = CB_LOG_DEBUG;
        o.console_level = CB_LOG_DEBUG;
    } else {
        o.console_level = CB_LOG_FATAL;
    }
    if (options_.sim) o.transport_config.emplace_back("backend", "sim");
    return o;
}

host::runtime& app::runtime() {
    if (runtime_) return *runtime_;
    // The CLI attaches; only `connect` connects (CUDABRIDGE_AUTOCONNECT is for programs).
    ::unsetenv("CUDABRIDGE_AUTOCONNECT");
    host::runtime_options o;
    o.session = session_options();
    o.autoconnect = false;
    o.visible_devices = false;  // every eGPU, numbered as `info` lists them, as nvidia-smi does
    o.reset_unanswering = reset_unanswering_;
    o.observe = read_only_;
    runtime_ = std::make_unique<host::runtime>(std::move(o));
    if (read_only_) require_sinks(runtime_->current_session().context(), sink_specs());
    return *runtime_;
}

std::vector<int> app::device_indices() {
    if (options_.device) return {device_index()};
    const int n = runtime().device_count();
    if (n == 0) device_index();  // throws the "no eGPU is connected" error with its reason
    std::vector<int> all;
    all.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all.push_back(i);
    return all;
}

host::session& app::session() {
    if (runtime_) return runtime_->current_session();
    if (!session_) session_ = std::make_unique<host::session>(session_options());
    return *session_;
}

std::string app::unreachable_egpu() {
    // Connected, but the attach failed: the GPU does not answer, or the IOMMU has no room.
    const std::string& why = runtime().startup_error();
    if (why.rfind("could not attach to ", 0) != 0) return {};
    return "the eGPU is connected but could not be reached (" + why +
           "): 'cudabridge-cli reset --hard' resets it through the link, 'cudabridge-cli disconnect --force' "
           "ends the connection";
}

int app::device_index() {
    auto& rt = runtime();
    const int want = options_.device.value_or(0);
    const int count = rt.device_count();
    if (count == 0) {
        // An attach that failed says why in the log; the runtime keeps the reason.
        const std::string& why = rt.startup_error();
        if (const std::string unreachable = unreachable_egpu(); !unreachable.empty())
            throw cli_error(exit_device_lost, unreachable);
        const bool generic = why.empty() || why.find("was not asked for") != std::string::npos;
        throw cli_error(exit_no_device, "no eGPU is connected" + (generic ? std::string() : " (" + why + ")") +
                                            ": run 'cudabridge-cli connect' first ('cudabridge-cli devices' lists "
                                            "what the transport sees)");
    }
    if (want >= count) {
        std::ostringstream m;
        m << "no device " << want << ": " << count << " eGPU" << (count == 1 ? " is" : "s are")
          << " connected (use -d 0" << (count > 1 ? " .. -d " + std::to_string(count - 1) : std::string()) << ")";
        throw cli_error(exit_no_device, m.str());
    }
    return want;
}

}  // namespace cudabridge::cli

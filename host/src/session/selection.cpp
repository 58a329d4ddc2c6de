// Which plugins a session uses: flag > environment > stored setting > default.
#include <cudabridge/host/session.hpp>

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/parameters.hpp>
#include <cudabridge/core/paths.hpp>

#include <cstdlib>
#include <sstream>

namespace cudabridge::host {
namespace {

struct selection_key {
    const char* environment;
    const char* setting;
    const char* fallback;
};

choice pick(const std::optional<std::string>& flag, const selection_key& key, core::store& db,
            const std::function<const char*(const char*)>& getenv) {
    if (flag && !flag->empty()) return {*flag, "flag"};
    if (getenv) {
        if (const char* v = getenv(key.environment); v && *v) return {v, "environment"};
    }
    if (auto v = core::get_setting(db, "global", key.setting); v && !v->empty()) return {*v, "setting"};
    return {key.fallback, "default"};
}

}  // namespace

plugin_selection resolve_selection(const selection_flags& flags, core::store& db,
                                   const std::function<const char*(const char*)>& getenv) {
    const std::function<const char*(const char*)> env = getenv ? getenv : [](const char* name) -> const char* {
        return core::running_privileged() ? nullptr : secure_getenv(name);  // never steered when privileged
    };
    plugin_selection s;
    s.transport = pick(flags.transport, {"CUDABRIDGE_TRANSPORT", "session.transport", "usb4"}, db, env);
    s.gpu = pick(flags.gpu, {"CUDABRIDGE_GPU", "session.gpu", "nvidia"}, db, env);
    s.safety = pick(flags.safety, {"CUDABRIDGE_SAFETY", "session.safety", "standard"}, db, env);
    s.log_sinks = pick(flags.log_sinks, {"CUDABRIDGE_LOG_SINKS", "log.sinks", "console,file,sqlite"}, db, env);
    return s;
}

void take_instance_config(choice& c, core::config_entries& config) {
    const size_t colon = c.value.find(':');
    if (colon == std::string::npos) return;
    const std::string name = c.value.substr(0, colon);
    std::string rest = c.value.substr(colon + 1);
    core::config_entries given;
    std::stringstream entries(rest);
    for (std::string entry; std::getline(entries, entry, ',');) {
        const size_t eq = entry.find('=');
        if (eq == 0 || eq == std::string::npos)
            throw core::error(CB_ERR_INVALID_ARGUMENT,
                              "plugin choice '" + c.value + "' (" + c.origin + "): '" + entry +
                                  "' is not KEY=VALUE (the form is NAME:KEY=VALUE[,KEY=VALUE])");
        given.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    }
    if (name.empty() || given.empty())
        throw core::error(CB_ERR_INVALID_ARGUMENT,
                          "plugin choice '" + c.value + "' (" + c.origin + "): the form is NAME:KEY=VALUE[,KEY=VALUE]");
    config.insert(config.begin(), given.begin(), given.end());
    c.value = name;
}

}  // namespace cudabridge::host

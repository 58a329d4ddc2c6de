// Which plugins a session uses: flag > environment > stored setting > default.
#include <cudabridge/host/session.hpp>

#include <cudabridge/core/parameters.hpp>

#include <cstdlib>

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
    const std::function<const char*(const char*)> env =
        getenv ? getenv : [](const char* name) -> const char* { return std::getenv(name); };
    plugin_selection s;
    s.transport = pick(flags.transport, {"CUDABRIDGE_TRANSPORT", "session.transport", "usb4"}, db, env);
    s.gpu = pick(flags.gpu, {"CUDABRIDGE_GPU", "session.gpu", "nvidia"}, db, env);
    s.safety = pick(flags.safety, {"CUDABRIDGE_SAFETY", "session.safety", "standard"}, db, env);
    s.log_sinks = pick(flags.log_sinks, {"CUDABRIDGE_LOG_SINKS", "log.sinks", "console,file,sqlite"}, db, env);
    return s;
}

}  // namespace cudabridge::host

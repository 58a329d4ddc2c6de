// The host service table every plugin instance receives. Each entry catches everything: a
// failure here becomes a status code, never an exception across the ABI.
#include "internal.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/log.hpp>
#include <cudabridge/core/paths.hpp>
#include <cudabridge/cpp/text_out.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>

namespace cudabridge::core {

namespace {

host_context& ctx(cb_host* h) { return *reinterpret_cast<host_context*>(h); }

template <class Body>
cb_status guarded(Body&& body) noexcept {
    try {
        return body();
    } catch (const error& e) {
        set_last_error(e.what());
        return e.status();
    } catch (const std::exception& e) {
        set_last_error(e.what());
        return CB_ERR_INTERNAL;
    } catch (...) {
        return CB_ERR_INTERNAL;
    }
}

std::string full_name(const host_context& c, const char* name) { return c.plugin_name + "." + name; }

void svc_log(cb_host* h, cb_log_level level, const char* category, const char* message) {
    try {
        host_context& c = ctx(h);
        const std::string text = c.plugin_name + ": " + (message ? message : "");
        if (c.backend->log) {
            int cat = log::category_id(category && *category ? category : "GENERAL");
            c.backend->log->log(level, cat < 0 ? 0 : cat, text);
        } else if (level >= CB_LOG_WARN) {
            std::fprintf(stderr, "cudabridge: %s\n", text.c_str());
        }
    } catch (...) {
        // Logging never fails its caller.
    }
}

cb_status svc_record_event(cb_host* h, const char* device, const char* category, cb_severity severity, const char* kind,
                           const char* message, const char* data_json) {
    return guarded([&]() -> cb_status {
        if (!category || !kind || !message) return CB_ERR_INVALID_ARGUMENT;
        host_context& c = ctx(h);
        event_row e;
        e.time_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        e.device = device ? device : "";
        e.category = category;
        e.severity = severity;
        e.kind = kind;
        e.message = message;
        e.data_json = data_json ? data_json : "";
        std::lock_guard lock(c.backend->mutex);
        add_event(c.backend->database(), e);
        return CB_OK;
    });
}

cb_status svc_param_declare(cb_host* h, const cb_param_decl* d) {
    return guarded([&]() -> cb_status {
        if (!CB_HAS_MEMBER(d, cb_param_decl, max_value) || !d->name || !*d->name || !d->default_value)
            return CB_ERR_INVALID_ARGUMENT;
        if (d->type < CB_PARAM_STRING || d->type > CB_PARAM_BOOL) return CB_ERR_INVALID_ARGUMENT;
        host_context& c = ctx(h);
        parameter_row p;
        p.name = full_name(c, d->name);
        p.owner = c.plugin_name;
        p.type = d->type;
        p.default_value = d->default_value;
        p.help = d->help ? d->help : "";
        p.has_range = d->has_range != 0;
        p.min_value = d->min_value;
        p.max_value = d->max_value;
        if (CB_HAS_MEMBER(d, cb_param_decl, flags)) {  // ABI 1.5
            p.choices = d->choices ? d->choices : "";
            p.flags = d->flags;
        }
        std::lock_guard lock(c.backend->mutex);
        store& db = c.backend->database();
        auto existing = find_parameter(db, p.name);
        const bool same = existing && existing->owner == p.owner && existing->type == p.type &&
                          existing->default_value == p.default_value && existing->help == p.help &&
                          existing->has_range == p.has_range && existing->min_value == p.min_value &&
                          existing->max_value == p.max_value && existing->choices == p.choices &&
                          existing->flags == p.flags;
        if (!same) declare_parameter(db, p);  // only write when the metadata changed
        return CB_OK;
    });
}

cb_status svc_param_get(cb_host* h, const char* name, char* buf, size_t size, size_t* needed) {
    return guarded([&]() -> cb_status {
        if (!name) return CB_ERR_INVALID_ARGUMENT;
        host_context& c = ctx(h);
        // Instance configuration first (e.g. --log-sink file:max_size=1000) ...
        for (const auto& [k, v] : c.config)
            if (k == name) return sdk::copy_text_out(v, buf, size, needed);
        // ... then the stored setting, then the declared default.
        std::lock_guard lock(c.backend->mutex);
        store& db = c.backend->database();
        const std::string key = full_name(c, name);
        if (auto v = get_setting(db, "global", key)) return sdk::copy_text_out(*v, buf, size, needed);
        if (auto p = find_parameter(db, key)) return sdk::copy_text_out(p->default_value, buf, size, needed);
        return CB_ERR_NOT_FOUND;
    });
}

uint64_t svc_monotonic_ns(cb_host*) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

int64_t svc_realtime_ns(cb_host*) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

cb_status svc_setting_get(cb_host* h, const char* scope, const char* key, char* buf, size_t size, size_t* needed) {
    return guarded([&]() -> cb_status {
        if (!scope || !key) return CB_ERR_INVALID_ARGUMENT;
        host_context& c = ctx(h);
        std::lock_guard lock(c.backend->mutex);
        auto v = get_setting(c.backend->database(), scope, key);
        if (!v) return CB_ERR_NOT_FOUND;
        return sdk::copy_text_out(*v, buf, size, needed);
    });
}

cb_status svc_setting_set(cb_host* h, const char* scope, const char* key, const char* value) {
    return guarded([&]() -> cb_status {
        if (!scope || !key || !value) return CB_ERR_INVALID_ARGUMENT;
        host_context& c = ctx(h);
        std::lock_guard lock(c.backend->mutex);
        set_setting(c.backend->database(), scope, key, value, "plugin:" + c.plugin_name);
        return CB_OK;
    });
}

void svc_set_last_error(cb_host*, const char* message) {
    try {
        set_last_error(message ? message : "");
    } catch (...) {
    }
}

cb_status svc_get_path(cb_host* h, cb_host_path which, char* buf, size_t size, size_t* needed) {
    return guarded([&]() -> cb_status {
        host_context& c = ctx(h);
        switch (which) {
        case CB_PATH_DATABASE:
            return sdk::copy_text_out(c.backend->database_path.string(), buf, size, needed);
        case CB_PATH_STATE_DIR:
            return sdk::copy_text_out(c.backend->database_path.parent_path().string(), buf, size, needed);
        case CB_PATH_LOG_DIR:
            return sdk::copy_text_out(default_log_dir().string(), buf, size, needed);
        default:
            return CB_ERR_INVALID_ARGUMENT;
        }
    });
}

}  // namespace

store& services_backend::database() {
    if (!db) db = std::make_unique<store>(database_path);
    return *db;
}

std::unique_ptr<host_context> make_host_context(std::shared_ptr<services_backend> backend, std::string plugin_name,
                                                const config_entries& config) {
    auto c = std::make_unique<host_context>();
    c->backend = std::move(backend);
    c->plugin_name = std::move(plugin_name);
    c->config = config;
    for (const auto& [k, v] : c->config) c->c_entries.push_back({k.c_str(), v.c_str()});
    c->c_config.struct_size = sizeof(cb_config);
    c->c_config.instance_name = c->plugin_name.c_str();
    c->c_config.entries = c->c_entries.data();
    c->c_config.entry_count = c->c_entries.size();

    cb_host_services& s = c->services;
    s.struct_size = sizeof(cb_host_services);
    s.abi_major = CB_ABI_MAJOR;
    s.abi_minor = CB_ABI_MINOR;
    s.host = reinterpret_cast<cb_host*>(c.get());
    s.log = &svc_log;
    s.record_event = &svc_record_event;
    s.param_declare = &svc_param_declare;
    s.param_get = &svc_param_get;
    s.monotonic_ns = &svc_monotonic_ns;
    s.setting_get = &svc_setting_get;
    s.setting_set = &svc_setting_set;
    s.set_last_error = &svc_set_last_error;
    s.get_path = &svc_get_path;
    s.realtime_ns = &svc_realtime_ns;
    return c;
}

}  // namespace cudabridge::core

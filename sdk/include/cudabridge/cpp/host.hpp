// C++ view of the host service table and of an instance's configuration, for plugin authors.
// Header-only; nothing here links against the host.
#ifndef CUDABRIDGE_CPP_HOST_HPP
#define CUDABRIDGE_CPP_HOST_HPP

#include <cudabridge/cpp/bool_text.hpp>
#include <cudabridge/plugin.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cudabridge::sdk {

// Throw this from plugin code to return a specific status; the firewall converts it.
class status_error : public std::runtime_error {
public:
    status_error(cb_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
    cb_status status() const noexcept { return status_; }

private:
    cb_status status_;
};

// Thin, copyable wrapper over the host's service table.
class host {
public:
    explicit host(const cb_host_services* services) : s_(services) {}

    const cb_host_services* services() const noexcept { return s_; }

    void log(cb_log_level level, const char* category, const std::string& message) const noexcept {
        if (CB_HAS_FIELD(s_, cb_host_services, log)) s_->log(s_->host, level, category, message.c_str());
    }

    cb_status record_event(const char* category, cb_severity severity, const char* kind, const std::string& message,
                           const char* device = nullptr, const char* data_json = nullptr) const noexcept {
        if (!CB_HAS_FIELD(s_, cb_host_services, record_event)) return CB_ERR_UNSUPPORTED;
        return s_->record_event(s_->host, device, category, severity, kind, message.c_str(), data_json);
    }

    // Declare a parameter; throws status_error when the host refuses it.
    void declare(cb_param_type type, const char* name, const char* default_value, const char* help) const {
        declare_range(type, name, default_value, help, false, 0, 0);
    }
    void declare_range(cb_param_type type, const char* name, const char* default_value, const char* help,
                       bool has_range, double min, double max) const {
        declare_checked(type, name, default_value, help, has_range, min, max, nullptr, 0);
    }
    // One of `choices` ("auto,sim,linux"): the host refuses any other value when it is set.
    void declare_choice(cb_param_type type, const char* name, const char* default_value, const char* help,
                        const char* choices) const {
        declare_checked(type, name, default_value, help, false, 0, 0, choices, 0);
    }
    // A folder: the host refuses a value it cannot create or write when it is set.
    void declare_directory(const char* name, const char* default_value, const char* help) const {
        declare_checked(CB_PARAM_STRING, name, default_value, help, false, 0, 0, nullptr, CB_PARAM_FLAG_DIRECTORY);
    }
    void declare_checked(cb_param_type type, const char* name, const char* default_value, const char* help,
                         bool has_range, double min, double max, const char* choices, uint32_t flags) const {
        if (!CB_HAS_FIELD(s_, cb_host_services, param_declare)) return;
        cb_param_decl d{};
        d.struct_size = sizeof d;
        d.type = type;
        d.name = name;
        d.default_value = default_value;
        d.help = help;
        d.has_range = has_range ? 1 : 0;
        d.min_value = min;
        d.max_value = max;
        d.choices = choices;
        d.flags = flags;
        cb_status st = s_->param_declare(s_->host, &d);
        if (st != CB_OK) throw status_error(st, std::string("cannot declare parameter ") + name);
    }

    // A declared parameter's effective value as text; nullopt when the host does not know it.
    std::optional<std::string> param(const char* name) const {
        if (!CB_HAS_FIELD(s_, cb_host_services, param_get)) return std::nullopt;
        return read_text(
            [&](char* buf, size_t size, size_t* needed) { return s_->param_get(s_->host, name, buf, size, needed); });
    }
    std::string param_or(const char* name, const std::string& fallback) const {
        auto v = param(name);
        return v ? *v : fallback;
    }
    long long param_int(const char* name, long long fallback) const {
        auto v = param(name);
        if (!v) return fallback;
        try {
            return std::stoll(*v);
        } catch (const std::exception&) {
            return fallback;
        }
    }
    double param_double(const char* name, double fallback) const {
        auto v = param(name);
        if (!v) return fallback;
        try {
            return std::stod(*v);
        } catch (const std::exception&) {
            return fallback;
        }
    }
    // The host refuses a value that is not a boolean when it is set; fallback covers the rest.
    bool param_bool(const char* name, bool fallback) const {
        auto v = param(name);
        if (!v) return fallback;
        return parse_bool(*v).value_or(fallback);
    }

    std::optional<std::string> setting(const char* scope, const char* key) const {
        if (!CB_HAS_FIELD(s_, cb_host_services, setting_get)) return std::nullopt;
        return read_text([&](char* buf, size_t size, size_t* needed) {
            return s_->setting_get(s_->host, scope, key, buf, size, needed);
        });
    }
    cb_status set_setting(const char* scope, const char* key, const std::string& value) const {
        if (!CB_HAS_FIELD(s_, cb_host_services, setting_set)) return CB_ERR_UNSUPPORTED;
        return s_->setting_set(s_->host, scope, key, value.c_str());
    }

    std::optional<std::string> path(cb_host_path which) const {
        if (!CB_HAS_FIELD(s_, cb_host_services, get_path)) return std::nullopt;
        return read_text(
            [&](char* buf, size_t size, size_t* needed) { return s_->get_path(s_->host, which, buf, size, needed); });
    }

    uint64_t monotonic_ns() const noexcept {
        return CB_HAS_FIELD(s_, cb_host_services, monotonic_ns) ? s_->monotonic_ns(s_->host) : 0;
    }

    void set_last_error(const char* message) const noexcept {
        if (CB_HAS_FIELD(s_, cb_host_services, set_last_error)) s_->set_last_error(s_->host, message);
    }

private:
    template <class Read>
    static std::optional<std::string> read_text(Read read) {
        std::string buf(256, '\0');
        size_t needed = 0;
        cb_status st = read(buf.data(), buf.size(), &needed);
        if (st == CB_OK && needed > buf.size()) {
            buf.assign(needed, '\0');
            st = read(buf.data(), buf.size(), &needed);
        }
        if (st != CB_OK) return std::nullopt;
        buf.resize(std::char_traits<char>::length(buf.c_str()));
        return buf;
    }

    const cb_host_services* s_;
};

// Read-only view of an instance's configuration entries.
class config {
public:
    explicit config(const cb_config* c) : c_(c) {}
    std::optional<std::string> get(std::string_view key) const {
        if (c_ == nullptr) return std::nullopt;
        for (size_t i = 0; i < c_->entry_count; ++i) {
            const cb_config_entry& e = c_->entries[i];
            if (e.key != nullptr && key == e.key) return std::string(e.value ? e.value : "");
        }
        return std::nullopt;
    }
    std::string instance_name() const { return c_ && c_->instance_name ? c_->instance_name : ""; }

private:
    const cb_config* c_;
};

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_HOST_HPP

#include "fake_host.hpp"

#include <cudabridge/cpp/text_out.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>

namespace cudabridge::test {

fake_host::fake_host(uint16_t abi_minor) {
    paths[CB_PATH_DATABASE] = "/nonexistent/cudabridge.db";
    paths[CB_PATH_STATE_DIR] = "/nonexistent/state";
    paths[CB_PATH_LOG_DIR] = "/nonexistent/log";

    services_.struct_size = abi_minor == 0 ? static_cast<uint32_t>(offsetof(cb_host_services, realtime_ns))
                                           : static_cast<uint32_t>(sizeof(cb_host_services));
    services_.abi_major = CB_ABI_MAJOR;
    services_.abi_minor = abi_minor;
    services_.host = reinterpret_cast<cb_host*>(this);
    services_.log = &log_;
    services_.record_event = &record_event_;
    services_.param_declare = &param_declare_;
    services_.param_get = &param_get_;
    services_.monotonic_ns = &monotonic_ns_;
    services_.setting_get = &setting_get_;
    services_.setting_set = &setting_set_;
    services_.set_last_error = &set_last_error_;
    services_.get_path = &get_path_;
    services_.realtime_ns = &realtime_ns_;
}

fake_host::fake_host(const std::filesystem::path& root) : fake_host() {
    paths[CB_PATH_DATABASE] = (root / "cudabridge.db").string();
    paths[CB_PATH_STATE_DIR] = (root / "state").string();
    paths[CB_PATH_LOG_DIR] = (root / "logs").string();
}

const cb_config* fake_host::instance_config() {
    entries_.clear();
    for (const auto& [k, v] : config) entries_.push_back({k.c_str(), v.c_str()});
    config_.struct_size = sizeof config_;
    config_.instance_name = "test";
    config_.entries = entries_.data();
    config_.entry_count = entries_.size();
    return &config_;
}

std::vector<declared_param> fake_host::declared() const {
    std::lock_guard lock(mutex_);
    return declared_;
}

declared_param fake_host::declaration(const std::string& name) const {
    std::lock_guard lock(mutex_);
    for (const auto& p : declared_)
        if (p.name == name) return p;
    return {};
}

std::vector<log_line> fake_host::logs() const {
    std::lock_guard lock(mutex_);
    return logs_;
}

std::vector<std::string> fake_host::events() const {
    std::lock_guard lock(mutex_);
    return events_;
}

std::vector<std::string> fake_host::errors() const {
    std::lock_guard lock(mutex_);
    return errors_;
}

std::string fake_host::last_error() const {
    std::lock_guard lock(mutex_);
    return errors_.empty() ? std::string() : errors_.back();
}

void fake_host::clear_errors() {
    std::lock_guard lock(mutex_);
    errors_.clear();
}

void fake_host::log_(cb_host* h, cb_log_level level, const char* category, const char* message) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.logs_.push_back({level, category ? category : "", message ? message : ""});
}

cb_status fake_host::record_event_(cb_host* h, const char*, const char* category, cb_severity, const char* kind,
                                   const char* message, const char*) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.events_.push_back(std::string(category ? category : "") + "/" + (kind ? kind : "") + ": " +
                        (message ? message : ""));
    return CB_OK;
}

cb_status fake_host::param_declare_(cb_host* h, const cb_param_decl* d) {
    if (d == nullptr || d->name == nullptr) return CB_ERR_INVALID_ARGUMENT;
    declared_param p{d->name,
                     d->type,
                     d->default_value ? d->default_value : "",
                     d->help ? d->help : "",
                     d->has_range != 0,
                     d->min_value,
                     d->max_value,
                     {},
                     0};
    if (CB_HAS_MEMBER(d, cb_param_decl, flags)) {
        p.choices = d->choices ? d->choices : "";
        p.flags = d->flags;
    }
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    // Declaring a name again updates it in place, as the real host does.
    for (auto& existing : s.declared_) {
        if (existing.name == p.name) {
            existing = p;
            return CB_OK;
        }
    }
    s.declared_.push_back(p);
    return CB_OK;
}

cb_status fake_host::param_get_(cb_host* h, const char* name, char* buf, size_t size, size_t* needed) {
    if (name == nullptr) return CB_ERR_INVALID_ARGUMENT;
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    if (auto c = s.config.find(name); c != s.config.end()) return sdk::copy_text_out(c->second, buf, size, needed);
    if (auto st = s.settings.find(name); st != s.settings.end())
        return sdk::copy_text_out(st->second, buf, size, needed);
    for (const auto& p : s.declared_)
        if (p.name == name) return sdk::copy_text_out(p.default_value, buf, size, needed);
    return CB_ERR_NOT_FOUND;
}

uint64_t fake_host::monotonic_ns_(cb_host*) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

int64_t fake_host::realtime_ns_(cb_host*) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

cb_status fake_host::setting_get_(cb_host* h, const char* scope, const char* key, char* buf, size_t size,
                                  size_t* needed) {
    if (scope == nullptr || key == nullptr) return CB_ERR_INVALID_ARGUMENT;
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    auto it = s.settings.find(key);
    if (it == s.settings.end()) return CB_ERR_NOT_FOUND;
    return sdk::copy_text_out(it->second, buf, size, needed);
}

cb_status fake_host::setting_set_(cb_host* h, const char* scope, const char* key, const char* value) {
    if (scope == nullptr || key == nullptr || value == nullptr) return CB_ERR_INVALID_ARGUMENT;
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.settings[key] = value;
    return CB_OK;
}

void fake_host::set_last_error_(cb_host* h, const char* message) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.errors_.push_back(message ? message : "");
}

cb_status fake_host::get_path_(cb_host* h, cb_host_path which, char* buf, size_t size, size_t* needed) {
    if (which < CB_PATH_DATABASE || which > CB_PATH_LOG_DIR) return CB_ERR_INVALID_ARGUMENT;
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    auto it = s.paths.find(which);
    if (it == s.paths.end()) return CB_ERR_NOT_FOUND;
    return sdk::copy_text_out(it->second, buf, size, needed);
}

}  // namespace cudabridge::test

#include "fake_host.hpp"

#include <chrono>
#include <cstring>

namespace cbtest {

namespace {
cb_status copy_out(const std::string& value, char* buf, size_t size, size_t* needed) {
    if (needed != nullptr) *needed = value.size() + 1;
    if (buf != nullptr && size > 0) {
        const size_t n = std::min(size - 1, value.size());
        std::memcpy(buf, value.data(), n);
        buf[n] = '\0';
    }
    return CB_OK;
}
}  // namespace

fake_host::fake_host(const std::filesystem::path& root) {
    paths[CB_PATH_DATABASE] = (root / "cudabridge.db").string();
    paths[CB_PATH_STATE_DIR] = (root / "state").string();
    paths[CB_PATH_LOG_DIR] = (root / "logs").string();

    services_.struct_size = sizeof services_;
    services_.abi_major = CB_ABI_MAJOR;
    services_.abi_minor = CB_ABI_MINOR;
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

const cb_config* fake_host::instance_config() {
    entries_.clear();
    for (const auto& [k, v] : config) entries_.push_back({k.c_str(), v.c_str()});
    config_.struct_size = sizeof config_;
    config_.instance_name = "test";
    config_.entries = entries_.data();
    config_.entry_count = entries_.size();
    return &config_;
}

void fake_host::log_(cb_host* h, cb_log_level level, const char* category, const char* message) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.logged.push_back(std::to_string(level) + " " + (category ? category : "") + " " +
                       (message ? message : ""));
}

cb_status fake_host::record_event_(cb_host* h, const char*, const char* category, cb_severity,
                                   const char* kind, const char* message, const char*) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.events.push_back(std::string(category ? category : "") + " " + (kind ? kind : "") + " " +
                       (message ? message : ""));
    return CB_OK;
}

cb_status fake_host::param_declare_(cb_host* h, const cb_param_decl* d) {
    if (d == nullptr || d->name == nullptr) return CB_ERR_INVALID_ARGUMENT;
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    declared_param p;
    p.type = d->type;
    p.default_value = d->default_value ? d->default_value : "";
    p.help = d->help ? d->help : "";
    p.has_range = d->has_range != 0;
    p.min = d->min_value;
    p.max = d->max_value;
    s.declared[d->name] = p;
    return CB_OK;
}

cb_status fake_host::param_get_(cb_host* h, const char* name, char* buf, size_t size,
                                size_t* needed) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    auto d = s.declared.find(name);
    if (d == s.declared.end()) return CB_ERR_NOT_FOUND;
    if (auto c = s.config.find(name); c != s.config.end()) return copy_out(c->second, buf, size, needed);
    if (auto st = s.settings.find(name); st != s.settings.end()) {
        return copy_out(st->second, buf, size, needed);
    }
    return copy_out(d->second.default_value, buf, size, needed);
}

uint64_t fake_host::monotonic_ns_(cb_host*) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}

cb_status fake_host::setting_get_(cb_host* h, const char*, const char* key, char* buf, size_t size,
                                  size_t* needed) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    auto it = s.settings.find(key);
    if (it == s.settings.end()) return CB_ERR_NOT_FOUND;
    return copy_out(it->second, buf, size, needed);
}

cb_status fake_host::setting_set_(cb_host* h, const char*, const char* key, const char* value) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.settings[key] = value ? value : "";
    return CB_OK;
}

void fake_host::set_last_error_(cb_host* h, const char* message) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    s.last_error = message ? message : "";
}

cb_status fake_host::get_path_(cb_host* h, cb_host_path which, char* buf, size_t size,
                               size_t* needed) {
    auto& s = self(h);
    std::lock_guard lock(s.mutex_);
    auto it = s.paths.find(which);
    if (it == s.paths.end()) return CB_ERR_NOT_FOUND;
    return copy_out(it->second, buf, size, needed);
}

int64_t fake_host::realtime_ns_(cb_host*) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace cbtest

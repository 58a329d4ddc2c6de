// A fake host service table for tests that call plugin entry points directly (without the
// registry): it records what the plugin declares, logs and reports, and answers parameter reads
// from a map the test fills in.
//
// Thread-safe; one fake_host per test. The cb_host_services it hands out points back at it, so
// it must outlive every instance created with it.
#ifndef CUDABRIDGE_TESTS_PLUGINS_FAKE_HOST_HPP
#define CUDABRIDGE_TESTS_PLUGINS_FAKE_HOST_HPP

#include <cudabridge/plugin.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cb_test {

class fake_host {
public:
    struct declared_param {
        cb_param_type type;
        std::string name;
        std::string default_value;
        std::string help;
    };
    struct log_line {
        cb_log_level level;
        std::string category;
        std::string message;
    };

    // abi_minor 0 makes the table look like an ABI 1.0 host's (no realtime_ns).
    explicit fake_host(uint16_t abi_minor = CB_ABI_MINOR) {
        services_.struct_size = abi_minor == 0
                                    ? static_cast<uint32_t>(offsetof(cb_host_services, realtime_ns))
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
    fake_host(const fake_host&) = delete;
    fake_host& operator=(const fake_host&) = delete;

    const cb_host_services* services() const noexcept { return &services_; }

    // Parameter values param_get returns (else the declared default, else CB_ERR_NOT_FOUND).
    void set_param(const std::string& name, const std::string& value) {
        std::lock_guard lock(mutex_);
        params_[name] = value;
    }

    std::vector<declared_param> declared() const {
        std::lock_guard lock(mutex_);
        return declared_;
    }
    std::vector<std::string> errors() const {  // every set_last_error, oldest first
        std::lock_guard lock(mutex_);
        return errors_;
    }
    std::string last_error() const {
        std::lock_guard lock(mutex_);
        return errors_.empty() ? std::string() : errors_.back();
    }
    std::vector<log_line> logs() const {
        std::lock_guard lock(mutex_);
        return logs_;
    }
    std::vector<std::string> events() const {
        std::lock_guard lock(mutex_);
        return events_;
    }

private:
    static fake_host& self(cb_host* h) { return *reinterpret_cast<fake_host*>(h); }

    // Copies text into buf the way the host services contract says: at most size bytes with
    // the terminator, *needed = full length + 1.
    static cb_status copy_out(const std::string& text, char* buf, size_t size, size_t* needed) {
        if (needed != nullptr) *needed = text.size() + 1;
        if (buf != nullptr && size > 0) {
            size_t n = text.size() < size - 1 ? text.size() : size - 1;
            std::memcpy(buf, text.data(), n);
            buf[n] = '\0';
        }
        return CB_OK;
    }

    static void log_(cb_host* h, cb_log_level level, const char* category, const char* message) {
        fake_host& f = self(h);
        std::lock_guard lock(f.mutex_);
        f.logs_.push_back({level, category ? category : "", message ? message : ""});
    }
    static cb_status record_event_(cb_host* h, const char*, const char* category, cb_severity,
                                   const char* kind, const char* message, const char*) {
        fake_host& f = self(h);
        std::lock_guard lock(f.mutex_);
        f.events_.push_back(std::string(category ? category : "") + "/" + (kind ? kind : "") +
                            ": " + (message ? message : ""));
        return CB_OK;
    }
    static cb_status param_declare_(cb_host* h, const cb_param_decl* d) {
        if (d == nullptr || d->name == nullptr) return CB_ERR_INVALID_ARGUMENT;
        fake_host& f = self(h);
        std::lock_guard lock(f.mutex_);
        declared_param p{d->type, d->name, d->default_value ? d->default_value : "",
                         d->help ? d->help : ""};
        for (auto& existing : f.declared_) {
            if (existing.name == p.name) {
                existing = p;
                return CB_OK;
            }
        }
        f.declared_.push_back(p);
        return CB_OK;
    }
    static cb_status param_get_(cb_host* h, const char* name, char* buf, size_t size,
                                size_t* needed) {
        if (name == nullptr) return CB_ERR_INVALID_ARGUMENT;
        fake_host& f = self(h);
        std::lock_guard lock(f.mutex_);
        if (auto it = f.params_.find(name); it != f.params_.end())
            return copy_out(it->second, buf, size, needed);
        for (const auto& p : f.declared_)
            if (p.name == name) return copy_out(p.default_value, buf, size, needed);
        return CB_ERR_NOT_FOUND;
    }
    static uint64_t monotonic_ns_(cb_host*) {
        return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now().time_since_epoch())
                                         .count());
    }
    static int64_t realtime_ns_(cb_host*) {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
    static cb_status setting_get_(cb_host* h, const char* scope, const char* key, char* buf,
                                  size_t size, size_t* needed) {
        if (scope == nullptr || key == nullptr) return CB_ERR_INVALID_ARGUMENT;
        fake_host& f = self(h);
        std::lock_guard lock(f.mutex_);
        auto it = f.settings_.find(std::string(scope) + "\n" + key);
        if (it == f.settings_.end()) return CB_ERR_NOT_FOUND;
        return copy_out(it->second, buf, size, needed);
    }
    static cb_status setting_set_(cb_host* h, const char* scope, const char* key,
                                  const char* value) {
        if (scope == nullptr || key == nullptr || value == nullptr) return CB_ERR_INVALID_ARGUMENT;
        fake_host& f = self(h);
        std::lock_guard lock(f.mutex_);
        f.settings_[std::string(scope) + "\n" + key] = value;
        return CB_OK;
    }
    static void set_last_error_(cb_host* h, const char* message) {
        fake_host& f = self(h);
        std::lock_guard lock(f.mutex_);
        f.errors_.push_back(message ? message : "");
    }
    static cb_status get_path_(cb_host*, cb_host_path which, char* buf, size_t size,
                               size_t* needed) {
        switch (which) {
            case CB_PATH_DATABASE: return copy_out("/nonexistent/cudabridge.db", buf, size, needed);
            case CB_PATH_STATE_DIR: return copy_out("/nonexistent/state", buf, size, needed);
            case CB_PATH_LOG_DIR: return copy_out("/nonexistent/log", buf, size, needed);
            default: return CB_ERR_INVALID_ARGUMENT;
        }
    }

    cb_host_services services_{};
    mutable std::mutex mutex_;
    std::map<std::string, std::string> params_;
    std::map<std::string, std::string> settings_;
    std::vector<declared_param> declared_;
    std::vector<std::string> errors_;
    std::vector<log_line> logs_;
    std::vector<std::string> events_;
};

}  // namespace cb_test

#endif  // CUDABRIDGE_TESTS_PLUGINS_FAKE_HOST_HPP

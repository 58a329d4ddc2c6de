// A stand-in for the CudaBridge host: the service table a sink is created with, backed by maps.
// Parameters resolve like the real host: instance config entry > stored setting > declared
// default. Paths point into a test's temporary folder; log lines, events and last errors are
// captured for the test to inspect.
#pragma once

#include <cudabridge/plugin.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cbtest {

struct declared_param {
    cb_param_type type = CB_PARAM_STRING;
    std::string default_value;
    std::string help;
    bool has_range = false;
    double min = 0;
    double max = 0;
};

class fake_host {
public:
    explicit fake_host(const std::filesystem::path& root);
    fake_host(const fake_host&) = delete;
    fake_host& operator=(const fake_host&) = delete;

    const cb_host_services* services() const noexcept { return &services_; }
    // The instance configuration built from `config` (valid until `config` changes).
    const cb_config* instance_config();

    std::map<std::string, std::string> config;    // instance config entries (highest priority)
    std::map<std::string, std::string> settings;  // stored settings, by plugin-local name
    std::map<std::string, declared_param> declared;
    std::map<cb_host_path, std::string> paths;
    std::vector<std::string> logged;
    std::vector<std::string> events;
    std::string last_error;

private:
    static fake_host& self(cb_host* h) { return *reinterpret_cast<fake_host*>(h); }
    static void log_(cb_host*, cb_log_level, const char*, const char*);
    static cb_status record_event_(cb_host*, const char*, const char*, cb_severity, const char*,
                                   const char*, const char*);
    static cb_status param_declare_(cb_host*, const cb_param_decl*);
    static cb_status param_get_(cb_host*, const char*, char*, size_t, size_t*);
    static uint64_t monotonic_ns_(cb_host*);
    static cb_status setting_get_(cb_host*, const char*, const char*, char*, size_t, size_t*);
    static cb_status setting_set_(cb_host*, const char*, const char*, const char*);
    static void set_last_error_(cb_host*, const char*);
    static cb_status get_path_(cb_host*, cb_host_path, char*, size_t, size_t*);
    static int64_t realtime_ns_(cb_host*);

    std::mutex mutex_;
    cb_host_services services_{};
    std::vector<cb_config_entry> entries_;
    cb_config config_{};
};

}  // namespace cbtest

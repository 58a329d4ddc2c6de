// A stand-in for the CudaBridge host: the service table a plugin is created with, for tests that
// call plugin entry points directly (without the registry).
//
// Parameters resolve like the real host: config entry > stored setting > declared default.
// Inputs (config, settings, paths) are filled by the test before a plugin gets services();
// what the plugin declares, logs and reports is read through the accessors, which lock, because
// a plugin may report from its own threads. The table points back at the object, so it must
// outlive every instance created with it.
#pragma once

#include <cudabridge/plugin.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cudabridge::test {

struct declared_param {
    std::string name;
    cb_param_type type = CB_PARAM_STRING;
    std::string default_value;
    std::string help;
    bool has_range = false;
    double min = 0;
    double max = 0;
    std::string choices;  // ABI 1.5
    uint32_t flags = 0;
};

struct log_line {
    cb_log_level level = CB_LOG_INFO;
    std::string category;
    std::string message;
};

class fake_host {
public:
    // Paths under /nonexistent, so a plugin that writes to them fails. abi_minor 0 makes the
    // table look like an ABI 1.0 host's (no realtime_ns).
    explicit fake_host(uint16_t abi_minor = CB_ABI_MINOR);
    // Paths inside root: cudabridge.db, state/, logs/ (not created).
    explicit fake_host(const std::filesystem::path& root);
    fake_host(const fake_host&) = delete;
    fake_host& operator=(const fake_host&) = delete;

    const cb_host_services* services() const noexcept { return &services_; }
    // The instance configuration built from `config` (valid until `config` changes).
    const cb_config* instance_config();

    std::map<std::string, std::string> config;    // instance config entries (highest priority)
    std::map<std::string, std::string> settings;  // stored settings by key, any scope
    std::map<cb_host_path, std::string> paths;    // a missing entry answers CB_ERR_NOT_FOUND

    std::vector<declared_param> declared() const;               // in declaration order
    declared_param declaration(const std::string& name) const;  // empty when never declared
    std::vector<log_line> logs() const;
    std::vector<std::string> events() const;  // "category/kind: message"
    std::vector<std::string> errors() const;  // every set_last_error, oldest first
    std::string last_error() const;           // empty when none
    void clear_errors();

private:
    static fake_host& self(cb_host* h) { return *reinterpret_cast<fake_host*>(h); }
    static void log_(cb_host*, cb_log_level, const char*, const char*);
    static cb_status record_event_(cb_host*, const char*, const char*, cb_severity, const char*, const char*,
                                   const char*);
    static cb_status param_declare_(cb_host*, const cb_param_decl*);
    static cb_status param_get_(cb_host*, const char*, char*, size_t, size_t*);
    static uint64_t monotonic_ns_(cb_host*);
    static cb_status setting_get_(cb_host*, const char*, const char*, char*, size_t, size_t*);
    static cb_status setting_set_(cb_host*, const char*, const char*, const char*);
    static void set_last_error_(cb_host*, const char*);
    static cb_status get_path_(cb_host*, cb_host_path, char*, size_t, size_t*);
    static int64_t realtime_ns_(cb_host*);

    mutable std::mutex mutex_;
    cb_host_services services_{};
    std::vector<cb_config_entry> entries_;
    cb_config config_{};
    std::vector<declared_param> declared_;
    std::vector<log_line> logs_;
    std::vector<std::string> events_;
    std::vector<std::string> errors_;
};

}  // namespace cudabridge::test

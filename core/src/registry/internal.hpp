// Pieces of the registry shared between its source files (not installed).
#pragma once

#include <cudabridge/core/registry.hpp>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::core {

// File-system facts and the permission rule: no file or folder on the way to it that another
// user could replace.
struct file_facts {
    std::string canonical;
    int64_t size = 0;
    int64_t mtime_ns = 0;
    int64_t ctime_ns = 0;  // changes with every write; a user can set mtime, not this
};
std::optional<file_facts> stat_plugin_file(const std::filesystem::path& path, std::string& why);
std::optional<std::string> unsafe_permissions(const std::filesystem::path& canonical_file);
// The SHA-256 of a file's bytes (hex), or "" when it cannot be read.
std::string file_sha256(const std::string& path);
// Why the file must not be loaded, read from its ELF headers without running any of its code
// (not an ELF shared object for this machine, cut short, no cb_plugin_entry exported), or nullopt.
std::optional<std::string> elf_problem(const std::string& canonical_file, int64_t size);
// Plugin library file names: lib*.so (and *.so.N); anything else in a folder is skipped.
bool looks_like_plugin_file(const std::filesystem::path& path);

// A dlopen'ed library (RTLD_NOW | RTLD_LOCAL) and its entry point's answer.
class loaded_library {
public:
    // Throws core::error(CB_ERR_NOT_FOUND / CB_ERR_ABI_MISMATCH...) with the loader's message.
    explicit loaded_library(const std::string& path);
    ~loaded_library();
    bool has_entry() const;
    const cb_plugin_library* entry() const;  // calls cb_plugin_entry
    const std::string& path() const noexcept { return path_; }

private:
    struct impl;
    std::unique_ptr<impl> impl_;
    std::string path_;
};

// Checks a library descriptor and every plugin in it; appends to checks and returns the plugins
// that passed. `ok` is false when the library as a whole must be refused.
std::vector<plugin_info> validate_library(const cb_plugin_library* lib, const std::string& path,
                                          std::vector<check_result>& checks, bool& ok);
// The minimum table size a plugin of this kind built for ABI 1.0 provides.
size_t minimum_table_size(cb_plugin_kind kind);
// The host's own size of the kind's table.
size_t host_table_size(cb_plugin_kind kind);

// plugin_info list <-> the JSON kept in plugin_cache.descriptors.
std::string encode_plugins(const std::vector<plugin_info>& plugins);
std::vector<plugin_info> decode_plugins(const std::string& json, const std::string& path);

// What the host service table reaches: a store connection of its own (plugins may call from
// any thread), the log front end, and the paths.
struct services_backend {
    std::filesystem::path database_path;
    log::front_end* log = nullptr;
    std::mutex mutex;           // guards db
    std::unique_ptr<store> db;  // opened on first use
    store& database();          // call with mutex held
};

struct host_context {
    cb_host_services services{};
    std::string plugin_name;
    std::vector<std::pair<std::string, std::string>> config;
    std::vector<cb_config_entry> c_entries;
    cb_config c_config{};
    std::shared_ptr<services_backend> backend;
};

std::unique_ptr<host_context> make_host_context(std::shared_ptr<services_backend> backend, std::string plugin_name,
                                                const config_entries& config);

}  // namespace cudabridge::core

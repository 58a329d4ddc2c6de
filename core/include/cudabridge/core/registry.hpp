// The plugin registry: finds plugin libraries, checks them, remembers what it found in the store,
// and creates plugin instances.
//
// Search order (first wins for pins, see below): --plugin-path entries, then
// CUDABRIDGE_PLUGIN_PATH (replaces what follows) or CUDABRIDGE_ADD_PLUGIN_PATH (prepends), the
// user plugin folder, the installed plugin folder. Environment and user folders are ignored when
// the process runs privileged. A path entry naming a file (not a folder) pins that library: its
// plugins win over same-named ones; otherwise the highest version wins.
//
// Files already in the cache with the same size and mtime are not loaded: `plugins list` reads
// the store only. A refused file is remembered with its reason until the file changes.
#pragma once

#include <cudabridge/core/store.hpp>
#include <cudabridge/plugin.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudabridge::core {

namespace log {
class front_end;
}

const char* kind_name(cb_plugin_kind kind) noexcept;
std::optional<cb_plugin_kind> parse_kind(std::string_view text);
std::string version_string(uint32_t version);

struct plugin_info {
    std::string name;
    cb_plugin_kind kind = 0;
    uint32_t version = 0;
    std::string license;
    std::string description;
    uint16_t abi_major = 0, abi_minor = 0;  // of the library
    std::string path;                       // canonical library path
    bool pinned = false;
    std::string shadowed_by;  // path of the winner when a duplicate lost; else ""
};

struct plugin_file {
    std::string path;  // canonical
    int64_t size = 0;
    int64_t mtime_ns = 0;
    bool ok = false;
    std::string reason;       // why refused
    bool from_cache = false;  // answered without loading
    bool pinned = false;
    std::vector<plugin_info> plugins;
};

struct search_options {
    std::vector<std::filesystem::path> extra_paths;  // --plugin-path (folders or pinned files)
    bool use_environment = true;
    std::optional<bool> privileged;                      // default: running_privileged()
    std::optional<std::filesystem::path> installed_dir;  // default: next to libcudabridge
};

struct search_entry {
    std::filesystem::path path;
    std::string origin;  // "--plugin-path", "CUDABRIDGE_PLUGIN_PATH", "user", "installed", ...
};
std::vector<search_entry> plugin_search_path(const search_options& options);
std::filesystem::path installed_plugin_dir();

// One check of `plugins verify`.
struct check_result {
    std::string name;
    bool passed = false;
    std::string detail;
};
struct verify_report {
    std::string path;
    bool ok = false;
    std::vector<check_result> checks;
    std::vector<plugin_info> plugins;
    std::string reason;  // the first failed check's detail
    std::string sha256;  // of the file's bytes, when it could be read (hex)
};
// Loads one file and runs every check on it (never touches the store).
verify_report verify_plugin_file(const std::filesystem::path& path);

class loaded_library;     // a dlopen'ed plugin library, shared by its instances
struct host_context;      // what one instance's host services table points at
struct services_backend;  // what all of a registry's host services share

// A created plugin instance; destroys itself (and closes a log sink) when released.
class plugin_instance {
public:
    ~plugin_instance();
    plugin_instance(const plugin_instance&) = delete;
    plugin_instance& operator=(const plugin_instance&) = delete;

    const plugin_info& info() const noexcept { return info_; }
    void* handle() const noexcept { return instance_; }
    // The kind's table as the host sees it: a host-sized copy, zero-filled past what the plugin
    // provides, so entries an older plugin lacks read as NULL.
    const cb_logsink_table* logsink() const;
    const cb_safety_table* safety() const;
    const cb_transport_table* transport() const;
    const cb_gpu_table* gpu() const;

private:
    friend class registry;
    plugin_instance() = default;

    plugin_info info_;
    std::shared_ptr<loaded_library> library_;
    std::unique_ptr<host_context> host_;
    const cb_plugin_descriptor* descriptor_ = nullptr;
    void* instance_ = nullptr;
    union tables {
        cb_logsink_table logsink;
        cb_safety_table safety;
        cb_transport_table transport;
        cb_gpu_table gpu;
    } table_{};
};

using config_entries = std::vector<std::pair<std::string, std::string>>;

class registry {
public:
    // `log` may be null (then plugin log calls go to stderr for WARN and above).
    registry(store& s, search_options options, log::front_end* log = nullptr);
    ~registry();
    registry(const registry&) = delete;
    registry& operator=(const registry&) = delete;

    // Walks the search path, answering from the cache where it can. Never throws for a bad
    // plugin: each refusal is logged and recorded.
    void scan();

    const std::vector<plugin_file>& files() const noexcept { return files_; }
    const std::vector<search_entry>& search_path() const noexcept { return search_; }
    // Every plugin found, winners and shadowed duplicates (shadowed_by set).
    std::vector<plugin_info> all_plugins() const;
    // The winner for a kind and name.
    std::optional<plugin_info> find(cb_plugin_kind kind, std::string_view name) const;
    // Libraries this process dlopen'ed so far (for showing that a cached listing loads none).
    size_t libraries_loaded() const noexcept { return libraries_loaded_; }

    // Creates an instance of the winning plugin; throws core::error with the plugin's own last
    // error message when creation fails.
    std::unique_ptr<plugin_instance> create(cb_plugin_kind kind, std::string_view name,
                                            const config_entries& config = {});

private:
    std::shared_ptr<loaded_library> load(const std::string& path);
    plugin_file inspect(const std::filesystem::path& path, bool pinned);
    void pick_winners();
    void record_refusal(const std::string& path, const std::string& reason);

    store& store_;
    search_options options_;
    log::front_end* log_;
    std::vector<search_entry> search_;
    std::vector<plugin_file> files_;
    std::map<std::string, std::shared_ptr<loaded_library>> libraries_;
    std::shared_ptr<services_backend> backend_;
    size_t libraries_loaded_ = 0;
};

}  // namespace cudabridge::core

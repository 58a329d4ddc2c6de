#include "internal.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/log.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include <Poco/JSON/Object.h>

namespace cudabridge::core {

namespace fs = std::filesystem;

namespace {

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Library files a search entry contributes: the file itself (a pin) or the folder's lib*.so.
std::vector<fs::path> files_of(const search_entry& entry, bool& pinned) {
    std::vector<fs::path> out;
    std::error_code ec;
    pinned = false;
    if (fs::is_regular_file(entry.path, ec)) {
        pinned = true;
        out.push_back(entry.path);
        return out;
    }
    if (!fs::is_directory(entry.path, ec)) return out;
    for (const auto& de : fs::directory_iterator(entry.path, ec))
        if (looks_like_plugin_file(de.path())) out.push_back(de.path());
    std::sort(out.begin(), out.end());  // readdir order is unspecified; make listings stable
    return out;
}

}  // namespace

void registry::record_refusal(const std::string& path, const std::string& reason) {
    // Kept in the event history as well as logged: the log may have no sink yet at start-up.
    try {
        Poco::JSON::Object data;
        data.set("path", path);
        data.set("reason", reason);
        std::ostringstream json;
        data.stringify(json);
        event_row e;
        e.category = "PLUGIN";
        e.severity = CB_SEVERITY_WARNING;
        e.kind = "plugin_refused";
        e.message = "plugin " + path + " refused: " + reason;
        e.data_json = json.str();
        add_event(store_, e);
    } catch (const std::exception&) {
        // A read-only store must not turn a refused plugin into a failed start-up.
    }
}

registry::registry(store& s, search_options options, log::front_end* log)
    : store_(s), options_(std::move(options)), log_(log) {}

registry::~registry() = default;

void registry::scan() {
    search_ = plugin_search_path(options_);
    files_.clear();
    std::set<std::string> seen;
    for (const auto& entry : search_) {
        bool pinned = false;
        for (const auto& file : files_of(entry, pinned)) {
            std::string why;
            auto facts = stat_plugin_file(file, why);
            if (facts && !seen.insert(facts->canonical).second) continue;  // listed twice
            files_.push_back(inspect(file, pinned));
        }
    }
    pick_winners();
}

plugin_file registry::inspect(const fs::path& path, bool pinned) {
    plugin_file f;
    f.path = path.string();
    f.pinned = pinned;
    std::string why;
    auto facts = stat_plugin_file(path, why);
    auto refuse = [&](std::string reason, bool fresh) {
        f.ok = false;
        f.reason = std::move(reason);
        if (fresh) record_refusal(f.path, f.reason);
        if (log_)
            log_->log(fresh ? CB_LOG_WARN : CB_LOG_DEBUG, log::category_id("PLUGIN"),
                      "plugin " + f.path + " refused: " + f.reason);
        else if (fresh)
            std::fprintf(stderr, "cudabridge: plugin %s refused: %s\n", f.path.c_str(), f.reason.c_str());
    };
    if (!facts) {
        refuse(why, true);
        return f;
    }
    f.path = facts->canonical;
    f.size = facts->size;
    f.mtime_ns = facts->mtime_ns;
    // Permissions are checked on every scan: they can change without touching size or mtime.
    if (auto unsafe = unsafe_permissions(facts->canonical)) {
        refuse(*unsafe, true);
        return f;
    }
    if (auto cached = find_plugin_cache(store_, f.path);
        cached && cached->size == f.size && cached->mtime_ns == f.mtime_ns && cached->ctime_ns == facts->ctime_ns) {
        f.from_cache = true;
        if (cached->state == "ok") {
            f.ok = true;
            f.plugins = decode_plugins(cached->descriptors_json, f.path);
        } else {
            refuse(cached->reason + " (remembered until the file changes)", false);
        }
        for (auto& p : f.plugins) p.pinned = pinned;
        return f;
    }
    // New or changed: load it and run every check, then remember the outcome.
    verify_report r = verify_plugin_file(facts->canonical);
    ++libraries_loaded_;
    f.ok = r.ok;
    f.plugins = r.plugins;
    for (auto& p : f.plugins) p.pinned = pinned;
    if (!r.ok) refuse(r.reason, true);
    plugin_cache_row row;
    row.path = f.path;
    row.size = f.size;
    row.mtime_ns = f.mtime_ns;
    row.ctime_ns = facts->ctime_ns;
    row.sha256 = r.sha256;
    row.state = r.ok ? "ok" : "refused";
    row.reason = r.ok ? "" : r.reason;
    row.descriptors_json = encode_plugins(f.plugins);
    row.checked_ns = now_ns();
    put_plugin_cache(store_, row);
    return f;
}

void registry::pick_winners() {
    // Group by (kind, name); a pinned library wins, else the highest version, else search order.
    std::map<std::pair<int, std::string>, const plugin_info*> winner;
    for (const auto& f : files_)
        for (const auto& p : f.plugins) {
            auto key = std::make_pair(static_cast<int>(p.kind), p.name);
            auto it = winner.find(key);
            if (it == winner.end()) {
                winner[key] = &p;
                continue;
            }
            const plugin_info* w = it->second;
            const bool better = (p.pinned && !w->pinned) || (p.pinned == w->pinned && p.version > w->version);
            if (better) it->second = &p;
        }
    for (auto& f : files_)
        for (auto& p : f.plugins) {
            const plugin_info* w = winner[{static_cast<int>(p.kind), p.name}];
            p.shadowed_by = (w == &p) ? "" : w->path;
            if (w != &p && log_)
                log_->log(CB_LOG_DEBUG, log::category_id("PLUGIN"),
                          "plugin " + p.name + " " + version_string(p.version) + " in " + p.path + " is shadowed by " +
                              version_string(w->version) + " in " + w->path);
        }
}

std::vector<plugin_info> registry::all_plugins() const {
    std::vector<plugin_info> out;
    for (const auto& f : files_) out.insert(out.end(), f.plugins.begin(), f.plugins.end());
    return out;
}

std::optional<plugin_info> registry::find(cb_plugin_kind kind, std::string_view name) const {
    for (const auto& f : files_)
        for (const auto& p : f.plugins)
            if (p.kind == kind && p.name == name && p.shadowed_by.empty()) return p;
    return std::nullopt;
}

std::shared_ptr<loaded_library> registry::load(const std::string& path) {
    auto it = libraries_.find(path);
    if (it != libraries_.end()) return it->second;
    auto lib = std::make_shared<loaded_library>(path);
    ++libraries_loaded_;
    libraries_[path] = lib;
    return lib;
}

std::unique_ptr<plugin_instance> registry::create(cb_plugin_kind kind, std::string_view name,
                                                  const config_entries& config) {
    auto info = find(kind, name);
    if (!info) {
        std::string known;
        for (const auto& p : all_plugins())
            if (p.kind == kind && p.shadowed_by.empty()) known += (known.empty() ? "" : ", ") + p.name;
        throw error(CB_ERR_NOT_FOUND, std::string("no ") + kind_name(kind) + " plugin named '" + std::string(name) +
                                          "'" + (known.empty() ? "" : " (available: " + known + ")"));
    }
    auto lib = load(info->path);
    // The file may have changed since the cache entry: validate the live descriptor again.
    std::vector<check_result> checks;
    bool ok = false;
    const cb_plugin_library* entry = lib->has_entry() ? lib->entry() : nullptr;
    validate_library(entry, info->path, checks, ok);
    if (!ok) {
        std::string reason;
        for (const auto& c : checks)
            if (!c.passed) reason = c.detail;
        throw error(CB_ERR_ABI_MISMATCH, "plugin " + info->path + " refused: " + reason);
    }
    const cb_plugin_descriptor* desc = nullptr;
    for (size_t i = 0; i < entry->plugin_count; ++i)
        if (entry->plugins[i]->kind == kind && name == entry->plugins[i]->name) desc = entry->plugins[i];

    if (!backend_) {
        backend_ = std::make_shared<services_backend>();
        backend_->database_path = store_.path();
        backend_->log = log_;
    }
    auto inst = std::unique_ptr<plugin_instance>(new plugin_instance());
    inst->info_ = *info;
    inst->library_ = lib;
    inst->descriptor_ = desc;
    inst->host_ = make_host_context(backend_, info->name, config);
    // Host-sized, zero-filled copy of the table: what an older plugin lacks reads as NULL.
    const uint32_t table_size = *static_cast<const uint32_t*>(desc->table);
    std::memcpy(&inst->table_, desc->table, std::min<size_t>(table_size, host_table_size(kind)));
    *reinterpret_cast<uint32_t*>(&inst->table_) = static_cast<uint32_t>(host_table_size(kind));

    set_last_error("");
    void* handle = nullptr;
    cb_status st = desc->create(&inst->host_->services, &inst->host_->c_config, &handle);
    if (st != CB_OK || handle == nullptr) {
        std::string why = last_error().empty() ? status_description(st) : last_error();
        if (log_)
            log_->log(CB_LOG_ERROR, log::category_id("PLUGIN"),
                      "plugin " + info->name + " (" + info->path + ") failed to start: " + why);
        throw error(st != CB_OK ? st : CB_ERR_INTERNAL, "plugin '" + info->name + "' (" + info->path +
                                                            ") failed to start: " + why + " [" + status_name(st) + "]");
    }
    inst->instance_ = handle;
    return inst;
}

}  // namespace cudabridge::core

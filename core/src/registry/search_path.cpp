// Where plugins are looked for, in order (docs/plugins.md).
#include "internal.hpp"

#include <cudabridge/core/paths.hpp>

#include <dlfcn.h>

#include <sstream>

namespace cudabridge::core {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> split_path_list(const std::string& text) {
    std::vector<fs::path> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ':'))
        if (!item.empty()) out.emplace_back(item);
    return out;
}

// The file the runtime (libcudabridge-internal, or the executable it is linked into) was loaded from.
fs::path this_binary() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&installed_plugin_dir), &info) == 0 || !info.dli_fname) return {};
    std::error_code ec;
    fs::path p = fs::canonical(info.dli_fname, ec);
    return ec ? fs::path(info.dli_fname) : p;
}

}  // namespace

fs::path installed_plugin_dir() {
    const fs::path binary = this_binary();
    const fs::path dir = binary.parent_path();
    std::error_code ec;
    // <prefix>/lib/libcudabridge-internal.so -> <prefix>/lib/cudabridge/plugins, or a statically linked
    // <prefix>/bin/tool -> <prefix>/lib/cudabridge/plugins. The build tree has the same layout.
    for (const char* rel : {CB_PLUGIN_DIR_FROM_LIB, "../" CB_PLUGIN_INSTALL_DIR}) {
        fs::path candidate = (dir / rel).lexically_normal();
        if (fs::is_directory(candidate, ec)) return candidate;
    }
    return (dir / CB_PLUGIN_DIR_FROM_LIB).lexically_normal();
}

std::vector<search_entry> plugin_search_path(const search_options& options) {
    const bool privileged = options.privileged.value_or(running_privileged());
    std::vector<search_entry> out;
    for (const auto& p : options.extra_paths) out.push_back({p, "--plugin-path"});

    bool replaced = false;
    if (options.use_environment && !privileged) {
        if (auto add = secure_env("CUDABRIDGE_ADD_PLUGIN_PATH"))
            for (auto& p : split_path_list(*add)) out.push_back({p, "CUDABRIDGE_ADD_PLUGIN_PATH"});
        if (auto replace = secure_env("CUDABRIDGE_PLUGIN_PATH")) {
            for (auto& p : split_path_list(*replace)) out.push_back({p, "CUDABRIDGE_PLUGIN_PATH"});
            replaced = true;
        }
    }
    if (!replaced) {
        // A privileged process trusts no folder its user can write.
        if (!privileged) out.push_back({user_plugin_dir(), "user"});
        out.push_back({options.installed_dir.value_or(installed_plugin_dir()), "installed"});
    }
    return out;
}

}  // namespace cudabridge::core

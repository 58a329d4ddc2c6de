// Facts about a plugin file and the rule that refuses files others could replace.
#include "internal.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace cudabridge::core {

namespace fs = std::filesystem;

std::optional<file_facts> stat_plugin_file(const fs::path& path, std::string& why) {
    std::error_code ec;
    fs::path canonical = fs::canonical(path, ec);
    if (ec) {
        why = "cannot resolve " + path.string() + ": " + ec.message();
        return std::nullopt;
    }
    struct stat st{};
    if (::stat(canonical.c_str(), &st) != 0) {
        why = "cannot stat " + canonical.string() + ": " + std::strerror(errno);
        return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
        why = canonical.string() + " is not a regular file";
        return std::nullopt;
    }
    file_facts f;
    f.canonical = canonical.string();
    f.size = static_cast<int64_t>(st.st_size);
    f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return f;
}

std::optional<std::string> unsafe_permissions(const fs::path& file) {
    struct stat st{};
    if (::stat(file.c_str(), &st) != 0) return "cannot stat " + file.string();
    if (st.st_mode & S_IWOTH) return "world-writable file " + file.string();
    const fs::path dir = file.parent_path();
    if (::stat(dir.c_str(), &st) != 0) return "cannot stat folder " + dir.string();
    if (st.st_mode & S_IWOTH) return "world-writable folder " + dir.string();
    return std::nullopt;
}

bool looks_like_plugin_file(const fs::path& path) {
    const std::string name = path.filename().string();
    if (name.rfind("lib", 0) != 0) return false;
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0) return true;
    return name.find(".so.") != std::string::npos;
}

}  // namespace cudabridge::core

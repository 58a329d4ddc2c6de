#include <cudabridge/core/paths.hpp>

#include <cudabridge/host_services.h>

#include <cstdlib>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudabridge::core {

bool running_privileged() { return getauxval(AT_SECURE) != 0 || getuid() != geteuid() || getgid() != getegid(); }

std::optional<std::string> secure_env(const char* name) {
    // glibc's secure_getenv already returns NULL under AT_SECURE; the uid check covers the rest.
    if (running_privileged()) return std::nullopt;
    const char* v = secure_getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
}

namespace {
std::filesystem::path home_dir() {
    if (auto h = secure_env("HOME")) return *h;
    return "/tmp";
}

std::filesystem::path xdg_dir(const char* var, const char* fallback_under_home) {
    if (auto v = secure_env(var); v && std::filesystem::path(*v).is_absolute()) return *v;
    return home_dir() / fallback_under_home;
}
}  // namespace

std::filesystem::path default_database_path() {
    // The store a parent process chose (cudabridge-cli --db X run -- PROGRAM hands X on).
    if (auto db = secure_env("CUDABRIDGE_DB"); db && std::filesystem::path(*db).is_absolute()) return *db;
    if (auto home = secure_env("CUDABRIDGE_HOME")) return std::filesystem::path(*home) / "cudabridge.db";
    return xdg_dir("XDG_STATE_HOME", ".local/state") / "cudabridge" / "cudabridge.db";
}

std::filesystem::path user_plugin_dir() { return xdg_dir("XDG_DATA_HOME", ".local/share") / "cudabridge" / "plugins"; }

log_dir_choice choose_log_dir(const std::filesystem::path& shared, const std::filesystem::path& per_user) {
    ::mkdir(shared.c_str(), 0755);  // ours if we make it; an existing one is checked below
    struct stat st {};
    if (::lstat(shared.c_str(), &st) != 0) return {per_user, shared.string() + " cannot be created"};
    if (!S_ISDIR(st.st_mode)) return {per_user, shared.string() + " is not a directory (a link?)"};
    if (st.st_uid != ::geteuid()) return {per_user, shared.string() + " belongs to another user"};
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return {per_user, shared.string() + " is writable by other users"};
    return {shared, shared.string() + " is this user's and writable by no one else"};
}

std::filesystem::path default_log_dir() {
    return choose_log_dir(CB_DEFAULT_LOG_DIR, xdg_dir("XDG_STATE_HOME", ".local/state") / "cudabridge" / "logs").dir;
}

}  // namespace cudabridge::core

#include <cudabridge/core/paths.hpp>

#include <cudabridge/cpp/secure_env.hpp>
#include <cudabridge/host_services.h>

#include <cstdlib>
#include <pwd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudabridge::core {

bool running_privileged() { return sdk::running_privileged(); }

std::optional<std::string> secure_env(const char* name) { return sdk::secure_env(name); }

namespace {
// $HOME, or where the password database puts this user's home: a privileged process ignores
// $HOME, and /tmp (where any user can make folders first) is no home.
std::filesystem::path home_dir() {
    if (auto h = secure_env("HOME")) return *h;
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir && *pw->pw_dir) return pw->pw_dir;
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

std::optional<std::string> not_own_folder(const std::filesystem::path& folder, struct stat* out) {
    struct stat st {};
    if (::lstat(folder.c_str(), &st) != 0) return folder.string() + " cannot be inspected";
    if (out) *out = st;
    if (!S_ISDIR(st.st_mode)) return folder.string() + " is not a directory (a link?)";
    if (st.st_uid != ::geteuid())
        return folder.string() + " belongs to another user (uid " + std::to_string(st.st_uid) + ")";
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return folder.string() + " is writable by other users";
    return std::nullopt;
}

std::optional<std::string> unsafe_store_location(const std::filesystem::path& db_file) {
    if (auto why = not_own_folder(std::filesystem::absolute(db_file).parent_path())) return why;
    struct stat st {};
    if (::lstat(db_file.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) return db_file.string() + " is not a regular file (a link?)";
        if (st.st_uid != ::geteuid())
            return db_file.string() + " belongs to another user (uid " + std::to_string(st.st_uid) + ")";
    }
    return std::nullopt;
}

std::filesystem::path user_plugin_dir() { return xdg_dir("XDG_DATA_HOME", ".local/share") / "cudabridge" / "plugins"; }

log_dir_choice choose_log_dir(const std::filesystem::path& shared, const std::filesystem::path& per_user) {
    ::mkdir(shared.c_str(), 0700);  // ours if we make it; an existing one is checked below
    struct stat st {};
    if (auto why = not_own_folder(shared, &st)) return {per_user, *why};
    // Ours: private from now on, as a folder made by an older release (0755) was not.
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) ::chmod(shared.c_str(), 0700);
    return {shared, shared.string() + " is this user's, and private"};
}

std::filesystem::path default_log_dir() {
    return choose_log_dir(CB_DEFAULT_LOG_DIR, xdg_dir("XDG_STATE_HOME", ".local/state") / "cudabridge" / "logs").dir;
}

}  // namespace cudabridge::core

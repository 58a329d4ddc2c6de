#include <cudabridge/core/paths.hpp>

#include <cstdlib>
#include <sys/auxv.h>
#include <unistd.h>

namespace cudabridge::core {

bool running_privileged() {
    return getauxval(AT_SECURE) != 0 || getuid() != geteuid() || getgid() != getegid();
}

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
    if (auto home = secure_env("CUDABRIDGE_HOME")) return std::filesystem::path(*home) / "cudabridge.db";
    return xdg_dir("XDG_STATE_HOME", ".local/state") / "cudabridge" / "cudabridge.db";
}

std::filesystem::path user_plugin_dir() {
    return xdg_dir("XDG_DATA_HOME", ".local/share") / "cudabridge" / "plugins";
}

std::filesystem::path default_log_dir() { return "/tmp/cudabridge_logs"; }

}  // namespace cudabridge::core

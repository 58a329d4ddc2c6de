// Where CudaBridge keeps its files. Every environment read goes through secure_env(), which
// returns nothing when the process runs with raised privileges (setuid, setgid, capabilities).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <sys/stat.h>

namespace cudabridge::core {

// secure_getenv(): nullopt when unset, empty, or when the process is privileged.
std::optional<std::string> secure_env(const char* name);
// True when the kernel marked this process for secure execution (AT_SECURE) or uid != euid.
bool running_privileged();

// The SQLite store: --db PATH if given, else $CUDABRIDGE_HOME/cudabridge.db, else
// $XDG_STATE_HOME/cudabridge/cudabridge.db, else ~/.local/state/cudabridge/cudabridge.db.
std::filesystem::path default_database_path();
// Why `folder` is not a folder of this process's user alone, or nullopt when it is: a real
// directory (no link), owned by the effective user, writable by no one else. Another user could
// have made it first, or can replace what is in it. `out` (may be null) receives its stat.
std::optional<std::string> not_own_folder(const std::filesystem::path& folder, struct stat* out = nullptr);
// Why a privileged process must not use the store at `db_file`, or nullopt when it may: its folder
// must be a real folder this process's user owns that no one else can write, and the file, when
// it exists, a regular file of that user (no link). Another user could otherwise have made either
// first and fed the privileged process its settings.
std::optional<std::string> unsafe_store_location(const std::filesystem::path& db_file);
// The per-user plugin folder: $XDG_DATA_HOME/cudabridge/plugins or ~/.local/share/cudabridge/plugins.
std::filesystem::path user_plugin_dir();
// Default folder of the file sinks: CB_DEFAULT_LOG_DIR (host_services.h) while it is safe, else
// $XDG_STATE_HOME/cudabridge/logs (~/.local/state/cudabridge/logs); see choose_log_dir.
std::filesystem::path default_log_dir();

// A folder every user can create in /tmp is only ours when it is a real directory (no link),
// owned by this user and writable by no one else; a hostile user could have made it first.
// `shared` is used (created 0700 when absent, made 0700 when it was not) when it is, `per_user`
// otherwise; `why` says which.
struct log_dir_choice {
    std::filesystem::path dir;
    std::string why;
};
log_dir_choice choose_log_dir(const std::filesystem::path& shared, const std::filesystem::path& per_user);

}  // namespace cudabridge::core

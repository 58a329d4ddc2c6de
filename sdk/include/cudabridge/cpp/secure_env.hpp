// The one way CudaBridge reads its environment, and the one rule for a file it may load into the
// process. A variable is ignored when the process runs with raised privileges (set-uid, set-gid,
// file capabilities: the kernel's AT_SECURE), as glibc's secure_getenv does, so another user
// cannot steer a privileged run through it. A library a variable names is loaded only when it,
// and every folder above it, is owned by this user or root and writable by no one else.
// Header-only (plugins see only the SDK). Linux.
#ifndef CUDABRIDGE_CPP_SECURE_ENV_HPP
#define CUDABRIDGE_CPP_SECURE_ENV_HPP

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudabridge::sdk {

// The kernel marked this process for secure execution, or its real and effective ids differ.
inline bool running_privileged() { return getauxval(AT_SECURE) != 0 || getuid() != geteuid() || getgid() != getegid(); }

// The variable's value; nullopt when unset, empty, or when the process is privileged.
inline std::optional<std::string> secure_env(const char* name) {
    if (running_privileged()) return std::nullopt;
    const char* v = secure_getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
}

// Why `file` must not be loaded into this process, or nullopt when it may. Whoever can write the
// file, or any folder above it, can replace what gets loaded: the file and each folder must be
// owned by this user or root; none may be writable by others, and only root's group may have
// group write. A folder writable by everyone passes only with its sticky bit (as /tmp: no one
// can replace what another user owns there). OpenSSH checks its key files' folders this way.
inline std::optional<std::string> untrusted_reason(const std::filesystem::path& file) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) return "cannot stat " + file.string();
    const uid_t me = ::geteuid();
    if (st.st_uid != 0 && st.st_uid != me)
        return file.string() + " belongs to another user (uid " + std::to_string(st.st_uid) + ")";
    if (st.st_mode & S_IWOTH) return "world-writable file " + file.string();
    if ((st.st_mode & S_IWGRP) && st.st_gid != 0)
        return "group-writable file " + file.string() + " (gid " + std::to_string(st.st_gid) + ")";
    const std::filesystem::path absolute = std::filesystem::absolute(file);
    for (std::filesystem::path dir = absolute.parent_path();; dir = dir.parent_path()) {
        if (::stat(dir.c_str(), &st) != 0) return "cannot stat folder " + dir.string();
        const bool sticky = (st.st_mode & S_ISVTX) != 0;
        if ((st.st_mode & S_IWOTH) && !sticky) return "world-writable folder " + dir.string();
        if ((st.st_mode & S_IWGRP) && st.st_gid != 0 && !sticky)
            return "folder " + dir.string() + " is writable by group " + std::to_string(st.st_gid);
        if (st.st_uid != 0 && st.st_uid != me)
            return "folder " + dir.string() + " belongs to another user (uid " + std::to_string(st.st_uid) + ")";
        if (dir == dir.root_path() || dir.parent_path() == dir) break;
    }
    return std::nullopt;
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_SECURE_ENV_HPP

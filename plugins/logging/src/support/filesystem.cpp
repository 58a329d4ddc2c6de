#include "filesystem.hpp"

#include <cudabridge/cpp/host.hpp>

#include <cerrno>
#include <cstring>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

namespace cudabridge::plugins::logging {

cb_status status_from_errno(int err) noexcept {
    switch (err) {
    case EACCES:
    case EPERM:
    case EROFS:
        return CB_ERR_PERMISSION;
    default:
        return CB_ERR_INVALID_ARGUMENT;
    }
}

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& action, const std::string& path, int err,
                       const std::string& wanted = {}) {
    std::string msg = what + ": cannot " + action + " '" + path + "'";
    if (!wanted.empty() && wanted != path) msg += " (for '" + wanted + "')";
    throw sdk::status_error(status_from_errno(err), msg + ": " + std::strerror(err));
}
}  // namespace

void ensure_directory(const std::string& dir, const std::string& what) {
    if (dir.empty()) {
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, what + ": empty folder name");
    }
    // mkdir -p: create each missing component in turn.
    for (size_t pos = 1; pos <= dir.size(); ++pos) {
        if (pos != dir.size() && dir[pos] != '/') continue;
        const std::string part = dir.substr(0, pos);
        if (part.empty() || part.back() == '/') continue;
        struct stat st {};
        if (::stat(part.c_str(), &st) == 0) {
            if (!S_ISDIR(st.st_mode)) fail(what, "create folder", dir, ENOTDIR);
            continue;
        }
        if (errno != ENOENT) fail(what, "inspect folder", part, errno, dir);
        // 0700: what a log says (device ids, paths, errors) is this user's business.
        if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) {
            fail(what, "create folder", part, errno, dir);
        }
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) fail(what, "write to folder", dir, errno);
}

void make_private(std::FILE* file) {
    if (file) ::fchmod(::fileno(file), 0600);  // best effort: a file of another owner stays as it is
}

std::string parent_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

}  // namespace cudabridge::plugins::logging

// Facts about a plugin file and the rule that refuses files others could replace.
#include "internal.hpp"

#include <cudabridge/cpp/secure_env.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <Poco/SHA2Engine.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace cudabridge::core {

namespace fs = std::filesystem;

std::optional<file_facts> stat_plugin_file(const fs::path& path, std::string& why) {
    std::error_code ec;
    fs::path canonical = fs::canonical(path, ec);
    if (ec) {
        why = "cannot resolve " + path.string() + ": " + ec.message();
        return std::nullopt;
    }
    struct stat st {};
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
    f.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    return f;
}

// Whoever can write a plugin file, or a folder above it, can replace what is loaded: the SDK's
// one rule for files loaded into the process (sdk::untrusted_reason).
std::optional<std::string> unsafe_permissions(const fs::path& file) { return sdk::untrusted_reason(file); }

std::string file_sha256(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
    std::vector<char> buf(1 << 16);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
        sha.update(buf.data(), static_cast<unsigned>(in.gcount()));
    return Poco::DigestEngine::digestToHex(sha.digest());
}

bool looks_like_plugin_file(const fs::path& path) {
    const std::string name = path.filename().string();
    if (name.rfind("lib", 0) != 0) return false;
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0) return true;
    return name.find(".so.") != std::string::npos;
}

}  // namespace cudabridge::core

#include "sim/ptx/jit_cache.hpp"

#include <cudabridge/cpp/bool_text.hpp>
#include <cudabridge/cpp/secure_env.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>
#include <vector>

namespace cudabridge::nv::ptx {

std::atomic<uint64_t> jit_cache::loaded{0}, jit_cache::stored{0}, jit_cache::damaged{0};

namespace {

namespace fs = std::filesystem;

constexpr char magic[8] = {'C', 'B', 'P', 'T', 'X', 'J', 'I', 'T'};
constexpr uint32_t format_version = 1;
constexpr uint64_t default_max_bytes = uint64_t{512} << 20;

struct entry_header {
    char magic[8];
    uint32_t format_version;
    uint32_t reserved;
    uint64_t bytes;     // of the machine code that follows
    uint64_t checksum;  // FNV-1a 64 of those bytes
};

uint64_t fnv1a(std::string_view bytes) {
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::optional<fs::path> default_folder() {
    if (auto dir = sdk::secure_env("CUDABRIDGE_PTX_CACHE_DIR")) return fs::path(*dir);
    if (auto xdg = sdk::secure_env("XDG_CACHE_HOME")) return fs::path(*xdg) / "cudabridge" / "ptx-jit";
    if (auto home = sdk::secure_env("HOME")) return fs::path(*home) / ".cache" / "cudabridge" / "ptx-jit";
    return std::nullopt;
}

uint64_t max_bytes_from_environment() {
    const auto text = sdk::secure_env("CUDABRIDGE_PTX_CACHE_BYTES");
    if (!text) return default_max_bytes;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text->c_str(), &end, 10);
    return end && *end == '\0' ? v : default_max_bytes;
}

// The folder, made 0700 when missing; why it must not be used otherwise.
std::optional<std::string> prepare(const fs::path& folder) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) return "cannot create " + folder.string() + ": " + ec.message();
    ::chmod(folder.c_str(), 0700);
    return sdk::untrusted_reason(folder);
}

bool read_whole(int fd, char* out, size_t n) {
    while (n > 0) {
        const ssize_t got = ::read(fd, out, n);
        if (got <= 0) return false;
        out += got, n -= size_t(got);
    }
    return true;
}

bool write_whole(int fd, const char* in, size_t n) {
    while (n > 0) {
        const ssize_t put = ::write(fd, in, n);
        if (put <= 0) return false;
        in += put, n -= size_t(put);
    }
    return true;
}

}  // namespace

jit_cache* jit_cache::shared() {
    static const std::unique_ptr<jit_cache> cache = []() -> std::unique_ptr<jit_cache> {
        if (sdk::running_privileged()) return nullptr;
        if (auto mode = sdk::secure_env("CUDABRIDGE_PTX_CACHE"); mode && sdk::parse_bool(*mode) == false)
            return nullptr;
        const auto folder = default_folder();
        if (!folder) return nullptr;
        if (auto why = prepare(*folder)) {
            std::fprintf(stderr, "cudabridge: PTX engine: not caching compiled kernels: %s\n", why->c_str());
            return nullptr;
        }
        return std::make_unique<jit_cache>(*folder, max_bytes_from_environment());
    }();
    return cache.get();
}

jit_cache::jit_cache(fs::path folder, uint64_t max_bytes) : folder_(std::move(folder)), max_bytes_(max_bytes) {}

fs::path jit_cache::entry(const std::string& key) const { return folder_ / (key + ".o"); }

std::optional<std::string> jit_cache::load(const std::string& key) {
    const fs::path path = entry(key);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    entry_header h{};
    std::string object;
    // Our own file, writable by no one else, whole, and as it was written: anything else is
    // never loaded into the process.
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
              (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 && read_whole(fd, reinterpret_cast<char*>(&h), sizeof h) &&
              std::memcmp(h.magic, magic, sizeof magic) == 0 && h.format_version == format_version &&
              h.bytes == uint64_t(st.st_size) - sizeof h;
    if (ok) {
        object.resize(h.bytes);
        ok = read_whole(fd, object.data(), object.size()) && fnv1a(object) == h.checksum;
    }
    ::close(fd);
    if (!ok) {
        ++damaged;
        std::error_code ec;
        fs::remove(path, ec);
        return std::nullopt;
    }
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // recently used: evicted last
    ++loaded;
    return object;
}

void jit_cache::store(const std::string& key, std::string_view object) {
    std::string temporary = (folder_ / (key + ".XXXXXX")).string();
    const int fd = ::mkstemp(temporary.data());  // 0600, a name no one else holds
    if (fd < 0) return;
    entry_header h{};
    std::memcpy(h.magic, magic, sizeof magic);
    h.format_version = format_version;
    h.bytes = object.size();
    h.checksum = fnv1a(object);
    const bool ok =
        write_whole(fd, reinterpret_cast<const char*>(&h), sizeof h) && write_whole(fd, object.data(), object.size());
    ::close(fd);
    std::error_code ec;
    if (!ok) {
        fs::remove(temporary, ec);
        return;
    }
    fs::rename(temporary, entry(key), ec);
    if (ec) {
        fs::remove(temporary, ec);
        return;
    }
    ++stored;
    keep_under_size();
}

// Oldest first (by last use) until the folder holds at most its size.
void jit_cache::keep_under_size() {
    struct file {
        fs::path path;
        fs::file_time_type used;
        uint64_t bytes;
    };
    std::vector<file> files;
    uint64_t total = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder_, ec)) {
        if (!e.is_regular_file(ec) || e.path().extension() != ".o") continue;
        const uint64_t bytes = e.file_size(ec);
        files.push_back({e.path(), e.last_write_time(ec), bytes});
        total += bytes;
    }
    if (total <= max_bytes_) return;
    std::sort(files.begin(), files.end(), [](const file& a, const file& b) { return a.used < b.used; });
    for (const file& f : files) {
        if (total <= max_bytes_) break;
        if (fs::remove(f.path, ec)) total -= f.bytes;
    }
}

}  // namespace cudabridge::nv::ptx

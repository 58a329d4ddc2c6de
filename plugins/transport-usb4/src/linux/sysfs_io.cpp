#include "sysfs_io.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace cudabridge::usb4::linux_sysfs {

fs::path at(const fs::path& root, std::string_view absolute) {
    while (!absolute.empty() && absolute.front() == '/') absolute.remove_prefix(1);
    return root / fs::path(std::string(absolute));
}

std::optional<std::string> read_attribute(const fs::path& file) {
    // A sysfs attribute is at most one page (64 KiB on some arm64 kernels): read in page-sized
    // steps and stop there, so a wrong path cannot pull in a huge file.
    constexpr std::size_t step = 4096, limit = 64 * 1024;
    int fd = -1;
    do {
        fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return std::nullopt;
    std::string text;
    bool failed = false;
    while (text.size() < limit) {
        const std::size_t used = text.size();
        text.resize(used + step);
        const ssize_t n = ::read(fd, text.data() + used, step);
        if (n < 0 && errno == EINTR) {
            text.resize(used);
            continue;
        }
        if (n <= 0) {
            text.resize(used);
            failed = n < 0;  // e.g. ENODATA from nvm_version, EISDIR for a folder
            break;
        }
        text.resize(used + static_cast<std::size_t>(n));
    }
    ::close(fd);
    if (failed) return std::nullopt;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                             text.back() == '\0'))
        text.pop_back();
    return text;
}

std::optional<std::uint64_t> read_unsigned(const fs::path& file, int base) {
    auto text = read_attribute(file);
    if (!text) return std::nullopt;
    std::string_view s = *text;
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (base == 0) {
        base = 10;
        if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
            s.remove_prefix(2);
            base = 16;
        }
    } else if (base == 16 && s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
    }
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
    if (ec != std::errc{} || end == s.data()) return std::nullopt;
    return value;
}

int write_attribute(const fs::path& file, std::string_view value) {
    // O_TRUNC matches the shell's `>`; sysfs ignores it and a fixture file ends up holding
    // exactly the value written. O_NOFOLLOW: an attribute is never a symlink.
    int fd = -1;
    do {
        fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return errno;
    int error = 0;
    ssize_t written = -1;
    do {
        written = ::write(fd, value.data(), value.size());
    } while (written < 0 && errno == EINTR);
    if (written < 0)
        error = errno;
    else if (static_cast<std::size_t>(written) != value.size())
        error = EIO;  // sysfs takes a store in one write; a short write means it was not taken
    if (::close(fd) != 0 && error == 0 && errno != EINTR) error = errno;
    return error;
}

std::vector<std::string> list_names(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::optional<fs::path> resolve(const fs::path& path) {
    std::error_code ec;
    auto canonical = fs::canonical(path, ec);
    if (ec) return std::nullopt;
    return canonical;
}

std::string link_target_name(const fs::path& link) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(link, ec))) return {};
    auto target = fs::read_symlink(link, ec);
    if (ec) return {};
    return target.filename().string();
}

std::string uevent_value(const fs::path& device_dir, std::string_view key) {
    auto text = read_attribute(device_dir / "uevent");
    if (!text) return {};
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == '=')
            return line.substr(key.size() + 1);
    }
    return {};
}

}  // namespace cudabridge::usb4::linux_sysfs

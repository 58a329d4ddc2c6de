#include "sim/shared_link_counters.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudabridge::usb4 {

namespace {

constexpr char kMagic[8] = {'C', 'B', 'L', 'I', 'N', 'K', 'C', '1'};
constexpr uint32_t kLayoutVersion = 1;

using counter = std::atomic<uint64_t>;
static_assert(counter::is_always_lock_free, "shared counters need lock-free 64-bit atomics");

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& why) {
    throw std::runtime_error("link counters file " + path.string() + ": " + why);
}
[[noreturn]] void fail_errno(const std::filesystem::path& path, const std::string& what, int err) {
    fail(path, what + ": " + std::strerror(err));
}

int lock_file(int fd, int how) {
    int r;
    while ((r = flock(fd, how)) != 0 && errno == EINTR) {
    }
    return r;
}

}  // namespace

struct shared_link_counters::mapped {
    char magic[8];
    uint32_t layout_version;
    uint32_t file_size;
    counter packets, crc_errors, replays, bytes_to_device, bytes_from_device, uncorrectable;
    // The error-rate windows: when the current one opened, and the totals when it and the one
    // before it opened.
    counter window_start_ns, window_packets, window_crc_errors;
    counter previous_packets, previous_crc_errors;
};

link_traffic operator-(const link_traffic& now, const link_traffic& before) noexcept {
    link_traffic d;
    d.packets = now.packets - before.packets;
    d.crc_errors = now.crc_errors - before.crc_errors;
    d.replays = now.replays - before.replays;
    d.bytes_to_device = now.bytes_to_device - before.bytes_to_device;
    d.bytes_from_device = now.bytes_from_device - before.bytes_from_device;
    d.uncorrectable = now.uncorrectable - before.uncorrectable;
    return d;
}

double crc_failure_rate(uint64_t packets, uint64_t crc_errors) noexcept {
    const uint64_t sends = packets + crc_errors;
    return sends ? static_cast<double>(crc_errors) / static_cast<double>(sends) : 0.0;
}

std::filesystem::path link_counters_path(const std::filesystem::path& dir, const std::string& enclosure_id) {
    std::string name;
    for (char c : enclosure_id) name += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
    return dir / ("usb4-link-" + name + ".counters");
}

shared_link_counters::shared_link_counters(const std::filesystem::path& path) {
    std::error_code ec;
    if (path.has_parent_path()) {
        std::filesystem::create_directories(path.parent_path(), ec);
        if (ec) fail(path, "cannot create its folder: " + ec.message());
    }
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_ < 0) fail_errno(path, "cannot open", errno);
    try {
        if (lock_file(fd_, LOCK_EX) != 0) fail_errno(path, "cannot lock", errno);
        struct stat st {};
        if (fstat(fd_, &st) != 0) fail_errno(path, "cannot stat", errno);
        if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
        const bool fresh = st.st_size == 0;
        if (fresh && ftruncate(fd_, sizeof(mapped)) != 0) fail_errno(path, "cannot size", errno);
        if (!fresh && static_cast<uint64_t>(st.st_size) != sizeof(mapped))
            fail(path, "size " + std::to_string(st.st_size) + " bytes, expected " + std::to_string(sizeof(mapped)));
        void* p = mmap(nullptr, sizeof(mapped), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (p == MAP_FAILED) fail_errno(path, "cannot map", errno);
        file_ = static_cast<mapped*>(p);
        if (fresh) {  // ftruncate zeroed every counter; the header goes last
            file_->layout_version = kLayoutVersion;
            file_->file_size = sizeof(mapped);
            std::memcpy(file_->magic, kMagic, sizeof kMagic);
        } else if (std::memcmp(file_->magic, kMagic, sizeof kMagic) != 0 || file_->layout_version != kLayoutVersion ||
                   file_->file_size != sizeof(mapped)) {
            fail(path, "not a link counters file of this version");
        }
        lock_file(fd_, LOCK_UN);
    } catch (...) {
        if (file_) munmap(file_, sizeof(mapped));
        ::close(fd_);
        throw;
    }
}

shared_link_counters::~shared_link_counters() {
    munmap(file_, sizeof(mapped));
    ::close(fd_);
}

void shared_link_counters::publish(const link_traffic& d, uint64_t now_ns) {
    auto add = [](counter& c, uint64_t v) {
        if (v) c.fetch_add(v, std::memory_order_relaxed);
    };
    add(file_->packets, d.packets);
    add(file_->crc_errors, d.crc_errors);
    add(file_->replays, d.replays);
    add(file_->bytes_to_device, d.bytes_to_device);
    add(file_->bytes_from_device, d.bytes_from_device);
    add(file_->uncorrectable, d.uncorrectable);
    if (now_ns - file_->window_start_ns.load(std::memory_order_relaxed) >= window_ns) roll_window(now_ns);
}

void shared_link_counters::roll_window(uint64_t now_ns) {
    // One process rolls; the others go on (they will see the new window next time).
    if (lock_file(fd_, LOCK_EX | LOCK_NB) != 0) return;
    if (now_ns - file_->window_start_ns.load() >= window_ns) {
        file_->previous_packets.store(file_->window_packets.load());
        file_->previous_crc_errors.store(file_->window_crc_errors.load());
        file_->window_packets.store(file_->packets.load());
        file_->window_crc_errors.store(file_->crc_errors.load());
        file_->window_start_ns.store(now_ns);
    }
    lock_file(fd_, LOCK_UN);
}

shared_link_totals shared_link_counters::read() const {
    shared_link_totals t;
    t.total.packets = file_->packets.load();
    t.total.crc_errors = file_->crc_errors.load();
    t.total.replays = file_->replays.load();
    t.total.bytes_to_device = file_->bytes_to_device.load();
    t.total.bytes_from_device = file_->bytes_from_device.load();
    t.total.uncorrectable = file_->uncorrectable.load();
    // A window ends only when someone looks, so the rate spans the window before the current one
    // too: traffic published a moment ago is always in it.
    const uint64_t since_packets = t.total.packets - std::min(t.total.packets, file_->previous_packets.load());
    const uint64_t since_errors = t.total.crc_errors - std::min(t.total.crc_errors, file_->previous_crc_errors.load());
    t.recent_error_rate = crc_failure_rate(since_packets, since_errors);
    return t;
}

}  // namespace cudabridge::usb4

#include "connection/shared_connection_state.hpp"

#include <cudabridge/core/error.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudabridge::host {

struct shared_connection_state::layout {
    uint64_t magic;
    uint32_t version;
    std::atomic<uint32_t> marked_failed;  // reserved, so 0, in files made before it: not failed
    std::atomic<uint64_t> epoch;
    std::atomic<uint32_t> state;
    std::atomic<uint32_t> emergency_stop;  // 0 in files made before it existed: not stopped
    std::atomic<int64_t> session_id;
    std::atomic<uint64_t> resets;         // hard resets and reconnects, by any process (layout 2)
    std::atomic<uint64_t> engine_resets;  // soft (engine) resets, by any process (layout 3)
};

namespace {

constexpr uint64_t magic_value = 0x434e4e4342524447ull;  // "GDRBCNNC"
constexpr uint32_t layout_version = 3;
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
              "the shared file needs lock-free atomics to be shared between processes");

std::string file_name_for(const std::string& device_id) {
    std::string name;
    for (char c : device_id) name += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    return name + ".v3.conn";  // layout 3: a file an older build made is never misread
}

[[noreturn]] void fail(const std::filesystem::path& path, const char* what) {
    throw core::error(CB_ERR_INTERNAL, "connection state " + path.string() + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

std::filesystem::path connection_state_folder(const std::filesystem::path& database) {
    return database.parent_path() / "connections";
}

shared_connection_state::shared_connection_state(const std::filesystem::path& folder, const std::string& device_id)
    : path_(folder / file_name_for(device_id)) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail(path_, "cannot open");
    // The first opener sizes and stamps the file; flock keeps two first openers apart.
    ::flock(fd, LOCK_EX);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        fail(path_, "cannot stat");
    }
    const bool fresh = st.st_size == 0;
    if (fresh && ::ftruncate(fd, sizeof(layout)) != 0) {
        ::close(fd);
        fail(path_, "cannot size");
    }
    if (!fresh && st.st_size != static_cast<off_t>(sizeof(layout))) {
        ::close(fd);
        throw core::error(CB_ERR_INVALID_ARGUMENT, "connection state " + path_.string() +
                                                       ": unexpected size (not a CudaBridge file, or another version)");
    }
    void* p = ::mmap(nullptr, sizeof(layout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        ::close(fd);
        fail(path_, "cannot map");
    }
    map_ = static_cast<layout*>(p);
    if (fresh) {
        map_->version = layout_version;
        map_->epoch.store(0);
        map_->state.store(static_cast<uint32_t>(shared_link_state::disconnected));
        map_->session_id.store(0);
        map_->emergency_stop.store(0);
        map_->marked_failed.store(0);
        map_->resets.store(0);
        map_->engine_resets.store(0);
        map_->magic = magic_value;
    }
    const bool ours = map_->magic == magic_value && map_->version == layout_version;
    ::flock(fd, LOCK_UN);
    ::close(fd);
    if (!ours) {
        ::munmap(map_, sizeof(layout));
        map_ = nullptr;
        throw core::error(CB_ERR_INVALID_ARGUMENT,
                          "connection state " + path_.string() + ": not a CudaBridge connection file");
    }
}

shared_connection_state::~shared_connection_state() {
    if (map_) ::munmap(map_, sizeof(layout));
}

shared_link_state shared_connection_state::state() const noexcept {
    return static_cast<shared_link_state>(map_->state.load(std::memory_order_acquire));
}
uint64_t shared_connection_state::epoch() const noexcept { return map_->epoch.load(std::memory_order_acquire); }
int64_t shared_connection_state::session_id() const noexcept {
    return map_->session_id.load(std::memory_order_acquire);
}

uint64_t shared_connection_state::publish_connected(int64_t session_id) noexcept {
    map_->session_id.store(session_id, std::memory_order_release);
    const uint64_t epoch = map_->epoch.fetch_add(1, std::memory_order_acq_rel) + 1;
    map_->state.store(static_cast<uint32_t>(shared_link_state::connected), std::memory_order_release);
    map_->emergency_stop.store(0, std::memory_order_release);
    map_->marked_failed.store(0, std::memory_order_release);
    return epoch;
}

void shared_connection_state::publish_emergency_stop(bool stopped) noexcept {
    map_->emergency_stop.store(stopped ? 1 : 0, std::memory_order_release);
}

bool shared_connection_state::emergency_stopped() const noexcept {
    return map_->emergency_stop.load(std::memory_order_acquire) != 0;
}

uint64_t shared_connection_state::publish_reset() noexcept {
    return map_->resets.fetch_add(1, std::memory_order_acq_rel) + 1;
}

uint64_t shared_connection_state::resets() const noexcept { return map_->resets.load(std::memory_order_acquire); }

uint64_t shared_connection_state::publish_engine_reset() noexcept {
    return map_->engine_resets.fetch_add(1, std::memory_order_acq_rel) + 1;
}

uint64_t shared_connection_state::engine_resets() const noexcept {
    return map_->engine_resets.load(std::memory_order_acquire);
}

void shared_connection_state::publish_failed(bool failed) noexcept {
    map_->marked_failed.store(failed ? 1 : 0, std::memory_order_release);
}

bool shared_connection_state::marked_failed() const noexcept {
    return map_->marked_failed.load(std::memory_order_acquire) != 0;
}

void shared_connection_state::publish_ended(shared_link_state state) noexcept {
    map_->state.store(static_cast<uint32_t>(state), std::memory_order_release);
    map_->epoch.fetch_add(1, std::memory_order_acq_rel);
}

bool shared_connection_state::still_connected(uint64_t epoch) const noexcept {
    return map_->epoch.load(std::memory_order_acquire) == epoch &&
           map_->state.load(std::memory_order_acquire) == static_cast<uint32_t>(shared_link_state::connected);
}

}  // namespace cudabridge::host

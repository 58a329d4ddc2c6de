// The shared live state file (see live_state.hpp).
//
// The file is one `shared_file` struct, mapped MAP_SHARED by every process attached to it. The
// header is written last when a file is created, so a file whose header is all zeros is one whose
// creator died before finishing: the next opener (holding the flock) initialises it again.
//
// Attachments: each live_state object takes a slot (pid, random token, bytes it allocated).
// attached_processes counts the slots; slots of processes that no longer exist are dropped on
// open, on robust-mutex recovery and at most once a second from tick(), and the memory they had
// allocated is taken off memory_used. (A slot of a process in another pid namespace whose pid is
// absent here would be dropped too: the count is then low, never negative.)
#include "sim/live_state/live_state.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <type_traits>

namespace cudabridge::nv {
namespace {

constexpr char kMagic[8] = {'C', 'B', 'N', 'V', 'L', 'I', 'V', 'E'};
constexpr uint32_t kLayoutVersion = 3;  // 2: attachments say who they are, hard resets counted; 3: busy shares
constexpr size_t kKeyBytes = 64;
constexpr size_t kMaxAttachments = 256;
constexpr uint64_t kNsPerS = 1'000'000'000ull;
// The longest gap one tick integrates: after 30 temperature lags the board has settled anyway.
constexpr uint64_t kMaxTickGapNs = 600 * kNsPerS;
// Busy time beyond elapsed time (a lump reported at completion, or engines overlapping) is
// carried to later ticks, up to this much.
constexpr uint64_t kMaxBusyCarryNs = kNsPerS;
constexpr uint64_t kPruneIntervalNs = kNsPerS;

struct file_header {
    char magic[8];
    uint32_t layout_version;
    uint32_t file_size;      // sizeof(shared_file)
    uint32_t pci_device_id;  // of the profile the file was made for
    uint32_t reserved;
    char profile_key[kKeyBytes];
};

constexpr size_t kNameBytes = 16;  // TASK_COMM_LEN

struct attachment {
    int32_t pid;  // 0: free slot
    uint32_t queued;
    uint64_t token;
    int64_t memory_bytes;
    uint64_t start_unix_ns;
    uint32_t computes;
    char name[kNameBytes];
    uint32_t reserved;
};

struct shared_file {
    file_header header;
    pthread_mutex_t mutex;  // PTHREAD_PROCESS_SHARED | PTHREAD_MUTEX_ROBUST
    thermal_state thermal;
    live_counters counters;
    attachment attachments[kMaxAttachments];
};

static_assert(std::is_trivially_copyable_v<thermal_state>);
static_assert(std::is_trivially_copyable_v<live_counters>);

uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * kNsPerS + static_cast<uint64_t>(ts.tv_nsec);
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& reason) {
    throw std::runtime_error("live state " + path.string() + ": " + reason);
}

[[noreturn]] void fail_errno(const std::filesystem::path& path, const std::string& what, int err) {
    fail(path, what + ": " + std::strerror(err));
}

uint64_t unix_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * kNsPerS + static_cast<uint64_t>(ts.tv_nsec);
}

// This process's name as the kernel knows it (what ps and nvidia-smi show).
void own_name(char (&out)[kNameBytes]) {
    std::memset(out, 0, sizeof out);
    const int fd = ::open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    const ssize_t n = ::read(fd, out, sizeof out - 1);
    ::close(fd);
    for (ssize_t i = 0; i < n; ++i)
        if (out[i] == '\n') out[i] = '\0';
}

live_process listed(const attachment& a) {
    live_process p;
    p.pid = a.pid;
    p.name.assign(a.name, strnlen(a.name, kNameBytes));
    p.start_unix_ns = a.start_unix_ns;
    p.memory_bytes = a.memory_bytes > 0 ? static_cast<uint64_t>(a.memory_bytes) : 0;
    p.queued = a.queued;
    p.computes = a.computes != 0;
    return p;
}

bool is_all_zero(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    return std::all_of(b, b + n, [](unsigned char c) { return c == 0; });
}

// This process's pid without a system call each time (own_slot runs on every doorbell): read
// once, and again in the child of a fork, whose copy of the mapping must not write the parent's
// slot.
std::atomic<int32_t> cached_pid{0};
void refresh_cached_pid() { cached_pid.store(static_cast<int32_t>(getpid()), std::memory_order_relaxed); }
int32_t own_pid() {
    static const bool armed = [] {
        refresh_cached_pid();
        pthread_atfork(nullptr, nullptr, refresh_cached_pid);
        return true;
    }();
    (void)armed;
    return cached_pid.load(std::memory_order_relaxed);
}

bool process_gone(int32_t pid) { return pid > 0 && kill(pid, 0) == -1 && errno == ESRCH; }

uint32_t count_attached(const shared_file& f) {
    return static_cast<uint32_t>(std::count_if(std::begin(f.attachments), std::end(f.attachments),
                                               [](const attachment& a) { return a.pid != 0; }));
}

void release_slot(shared_file& f, attachment& a) {
    const uint64_t held = a.memory_bytes > 0 ? static_cast<uint64_t>(a.memory_bytes) : 0;
    f.counters.memory_used -= std::min(f.counters.memory_used, held);
    a = attachment{};
}

void prune_dead(shared_file& f, uint64_t now) {
    for (attachment& a : f.attachments)
        if (a.pid < 0 || process_gone(a.pid)) release_slot(f, a);
    f.counters.attached_processes = count_attached(f);
    f.counters.last_prune_ns = now;
}

// Never trust what another process (or a crash) left: settings out of bounds go back to the
// defaults, non-finite readings back to an idle board.
void sanitise(const gpu_profile& profile, thermal_state& state) {
    const thermal_state fresh = initial_thermal_state(profile);
    cb_gpu_settings request = settings_of(state.settings);
    if (profile.passive() && state.settings.fan_percent == -1) request.fields &= ~uint32_t{CB_SET_FAN};
    thermal_settings checked = fresh.settings;
    std::string error;
    if (apply_settings(profile, checked, request, error) != CB_OK) state.settings = fresh.settings;
    const double readings[] = {state.temperature_c, state.power_w, state.fan_percent, state.activity};
    if (!std::all_of(std::begin(readings), std::end(readings), [](double v) { return std::isfinite(v); }) ||
        state.activity < 0 || state.activity > 1) {
        const thermal_settings keep = state.settings;
        state = fresh;
        state.settings = keep;
    }
}

void init_mutex(const std::filesystem::path& path, pthread_mutex_t& mutex) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    const int r = pthread_mutex_init(&mutex, &attr);
    pthread_mutexattr_destroy(&attr);
    if (r != 0) fail_errno(path, "cannot initialise the mutex", r);
}

void initialise(const std::filesystem::path& path, shared_file& f, const gpu_profile& profile) {
    std::memset(static_cast<void*>(&f), 0, sizeof f);  // every byte, padding included
    init_mutex(path, f.mutex);
    f.thermal = initial_thermal_state(profile);
    f.counters = live_counters{};
    f.counters.memory_total = profile.vram_bytes;
    f.counters.last_update_ns = monotonic_ns();
    file_header h{};
    h.layout_version = kLayoutVersion;
    h.file_size = sizeof(shared_file);
    h.pci_device_id = profile.pci_device_id;
    std::strncpy(h.profile_key, profile.key.c_str(), kKeyBytes - 1);
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    f.header = h;  // last: a zero header means "not finished"
}

void validate_layout(const std::filesystem::path& path, const file_header& h) {
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) fail(path, "not a live state file (wrong magic)");
    if (h.layout_version != kLayoutVersion)
        fail(path,
             "layout version " + std::to_string(h.layout_version) + ", expected " + std::to_string(kLayoutVersion));
    if (h.file_size != sizeof(shared_file))
        fail(path,
             "recorded size " + std::to_string(h.file_size) + ", expected " + std::to_string(sizeof(shared_file)));
}

void validate_header(const std::filesystem::path& path, const file_header& h, const gpu_profile& profile) {
    validate_layout(path, h);
    const std::string key(h.profile_key, strnlen(h.profile_key, kKeyBytes));
    if (h.pci_device_id != profile.pci_device_id || key != profile.key.substr(0, kKeyBytes - 1))
        fail(path, "made for another model (" + key + "), not " + profile.key);
}

// Unlocks and closes a descriptor on every path out. The unlock is explicit: the mapping keeps
// the open file alive, and with it the flock, after the descriptor closes.
struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd < 0) return;
        flock(fd, LOCK_UN);
        ::close(fd);
    }
};

}  // namespace

struct live_state::impl {
    std::filesystem::path path;
    gpu_profile profile;
    shared_file* file = nullptr;
    size_t slot = kMaxAttachments;  // kMaxAttachments: none
    uint64_t token = 0;
    int32_t pid = 0;
    bool knows_profile = true;  // false for a reader of the process table: it cannot sanitise

    // Locks the shared mutex, recovering it when its owner died holding it.
    class lock {
    public:
        explicit lock(const impl& s) : s_(s) {
            const int r = pthread_mutex_lock(&s.file->mutex);
            if (r == EOWNERDEAD) {
                if (s.knows_profile) sanitise(s.profile, s.file->thermal);
                prune_dead(*s.file, monotonic_ns());
                pthread_mutex_consistent(&s.file->mutex);
            } else if (r != 0) {
                fail_errno(s.path, "cannot lock", r);
            }
        }
        ~lock() { pthread_mutex_unlock(&s_.file->mutex); }
        lock(const lock&) = delete;
        lock& operator=(const lock&) = delete;

    private:
        const impl& s_;
    };

    void map(int fd) {
        void* p = mmap(nullptr, sizeof(shared_file), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) fail_errno(path, "cannot map", errno);
        file = static_cast<shared_file*>(p);
    }

    void attach() {
        lock held(*this);
        prune_dead(*file, monotonic_ns());
        for (size_t i = 0; i < kMaxAttachments; ++i) {
            if (file->attachments[i].pid != 0) continue;
            attachment a{};
            a.pid = pid;
            a.token = token;
            a.start_unix_ns = unix_ns();
            own_name(a.name);
            file->attachments[i] = a;
            slot = i;
            file->counters.attached_processes = count_attached(*file);
            return;
        }
        fail(path, "more than " + std::to_string(kMaxAttachments) + " attachments");
    }

    attachment* own_slot() const {
        if (slot >= kMaxAttachments) return nullptr;
        attachment& a = file->attachments[slot];
        return a.pid == pid && a.token == token && pid == own_pid() ? &a : nullptr;
    }
};

live_state::live_state(const std::filesystem::path& path, const gpu_profile& profile)
    : impl_(std::make_unique<impl>()) {
    impl& s = *impl_;
    s.path = path;
    s.profile = profile;
    s.pid = own_pid();
    s.token = std::random_device{}() ^ (static_cast<uint64_t>(std::random_device{}()) << 32) ^ monotonic_ns();

    std::error_code ec;
    if (path.has_parent_path()) {
        std::filesystem::create_directories(path.parent_path(), ec);
        if (ec) fail(path, "cannot create its folder: " + ec.message());
    }
    fd_guard fd{::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666)};
    if (fd.fd < 0) fail_errno(path, "cannot open", errno);
    int r;
    while ((r = flock(fd.fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (r != 0) fail_errno(path, "cannot lock the file", errno);

    struct stat st {};
    if (fstat(fd.fd, &st) != 0) fail_errno(path, "cannot stat", errno);
    if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
    const bool fresh = st.st_size == 0;
    if (fresh && ftruncate(fd.fd, sizeof(shared_file)) != 0) fail_errno(path, "cannot size", errno);
    if (!fresh && static_cast<uint64_t>(st.st_size) != sizeof(shared_file))
        fail(path, "size " + std::to_string(st.st_size) + " bytes, expected " + std::to_string(sizeof(shared_file)));
    s.map(fd.fd);
    try {
        if (fresh || is_all_zero(&s.file->header, sizeof(file_header))) {
            initialise(path, *s.file, profile);
        } else {
            validate_header(path, s.file->header, profile);
            impl::lock held(s);
            sanitise(profile, s.file->thermal);
        }
        s.attach();
    } catch (...) {
        munmap(s.file, sizeof(shared_file));
        throw;
    }
}

live_state::~live_state() {
    if (!impl_ || !impl_->file) return;
    try {
        impl::lock held(*impl_);
        if (attachment* a = impl_->own_slot()) {
            release_slot(*impl_->file, *a);
            impl_->file->counters.attached_processes = count_attached(*impl_->file);
        }
    } catch (...) {
        // An unrecoverable mutex: nothing more to do than unmap.
    }
    munmap(impl_->file, sizeof(shared_file));
}

const std::filesystem::path& live_state::path() const noexcept { return impl_->path; }

void live_state::update(const std::function<void(thermal_state&, live_counters&)>& fn) {
    impl::lock held(*impl_);
    fn(impl_->file->thermal, impl_->file->counters);
}

live_snapshot live_state::snapshot() const {
    impl::lock held(*impl_);
    return live_snapshot{impl_->file->thermal, impl_->file->counters};
}

void live_state::tick() {
    const uint64_t now = monotonic_ns();
    impl::lock held(*impl_);
    shared_file& f = *impl_->file;
    live_counters& c = f.counters;
    if (c.busy_ns < c.busy_ns_at_last_update) c.busy_ns_at_last_update = c.busy_ns;  // counter reset
    if (now <= c.last_update_ns) {
        c.last_update_ns = std::min(c.last_update_ns, now);  // clock went back (file from before a boot)
        return;
    }
    const uint64_t elapsed = now - c.last_update_ns;
    const uint64_t consumed = std::min(c.busy_ns - c.busy_ns_at_last_update, elapsed);
    const double activity = static_cast<double>(consumed) / static_cast<double>(elapsed);
    const double dt_s = static_cast<double>(std::min(elapsed, kMaxTickGapNs)) / kNsPerS;
    advance(impl_->profile, f.thermal, dt_s, activity);

    c.busy_ns_at_last_update += consumed;
    if (c.busy_ns - c.busy_ns_at_last_update > kMaxBusyCarryNs) c.busy_ns_at_last_update = c.busy_ns - kMaxBusyCarryNs;
    c.last_update_ns = now;
    c.kernels.advance(elapsed);
    c.memory_traffic.advance(elapsed);
    c.gpu_utilization = 100.0 * c.kernels.share;
    c.memory_utilization = 100.0 * c.memory_traffic.share;
    if (now - c.last_prune_ns >= kPruneIntervalNs) prune_dead(f, now);
}

void live_state::add_busy(uint64_t ns) {
    impl::lock held(*impl_);
    impl_->file->counters.busy_ns += ns;
}

void live_state::add_memory_used(int64_t delta_bytes) {
    impl::lock held(*impl_);
    live_counters& c = impl_->file->counters;
    if (delta_bytes >= 0) {
        c.memory_used += static_cast<uint64_t>(delta_bytes);
    } else {
        const uint64_t take = static_cast<uint64_t>(-(delta_bytes + 1)) + 1;  // no overflow at INT64_MIN
        c.memory_used -= std::min(c.memory_used, take);
    }
    if (attachment* a = impl_->own_slot()) a->memory_bytes += delta_bytes;
}

bool live_state::reserve_memory(uint64_t bytes) {
    impl::lock held(*impl_);
    live_counters& c = impl_->file->counters;
    if (bytes > c.memory_total || c.memory_used > c.memory_total - bytes) return false;
    c.memory_used += bytes;
    if (attachment* a = impl_->own_slot()) {
        a->memory_bytes += static_cast<int64_t>(bytes);
        a->computes = 1;
    }
    return true;
}

void live_state::release_memory(uint64_t bytes) {
    impl::lock held(*impl_);
    attachment* a = impl_->own_slot();
    if (!a || a->memory_bytes <= 0) return;
    const uint64_t take = std::min(bytes, static_cast<uint64_t>(a->memory_bytes));
    a->memory_bytes -= static_cast<int64_t>(take);
    live_counters& c = impl_->file->counters;
    c.memory_used -= std::min(c.memory_used, take);
}

void live_state::set_queued(uint32_t commands) {
    impl::lock held(*impl_);
    if (attachment* a = impl_->own_slot()) {
        a->queued = commands;
        if (commands) a->computes = 1;
    }
}

void live_state::count_hard_reset() {
    impl::lock held(*impl_);
    ++impl_->file->counters.hard_resets;
}

std::vector<live_process> live_state::processes(const std::filesystem::path& path) {
    fd_guard fd{::open(path.c_str(), O_RDWR | O_CLOEXEC)};
    if (fd.fd < 0) {
        if (errno == ENOENT) return {};
        fail_errno(path, "cannot open", errno);
    }
    struct stat st {};
    if (fstat(fd.fd, &st) != 0) fail_errno(path, "cannot stat", errno);
    if (!S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) != sizeof(shared_file))
        fail(path, "size " + std::to_string(st.st_size) + " bytes, expected " + std::to_string(sizeof(shared_file)));
    impl reader;
    reader.path = path;
    reader.knows_profile = false;
    reader.map(fd.fd);
    std::vector<live_process> out;
    try {
        if (is_all_zero(&reader.file->header, sizeof(file_header))) {
            munmap(reader.file, sizeof(shared_file));
            return out;  // its creator is still writing it: nobody attached yet
        }
        validate_layout(path, reader.file->header);
        impl::lock held(reader);
        for (const attachment& a : reader.file->attachments)
            if (a.pid > 0 && !process_gone(a.pid)) out.push_back(listed(a));
    } catch (...) {
        munmap(reader.file, sizeof(shared_file));
        throw;
    }
    munmap(reader.file, sizeof(shared_file));
    return out;
}

std::filesystem::path live_state_path(const std::filesystem::path& state_dir, const std::string& device_id) {
    std::string safe = device_id.empty() ? "_" : device_id;
    for (char& ch : safe) {
        const bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                        ch == '_' || ch == '-';
        if (!ok) ch = '_';
    }
    return state_dir / ("gpu-" + safe + ".v" + std::to_string(kLayoutVersion) + ".live");
}

}  // namespace cudabridge::nv

#include "run_summary.hpp"

#include "errors.hpp"
#include "handles.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudabridge::cudart {
namespace {

struct counters {
    std::atomic<unsigned long long> kernels{0}, h2d{0}, d2h{0}, d2d{0};
    std::mutex mutex;
    std::vector<std::pair<cbEvent_t, cbEvent_t>> timed;  // launches not yet folded into kernel_ms
    double kernel_ms = 0;
    bool simulated = false;
    std::vector<cbEvent_t> spare;  // events timed launches are done with, reused (creating one costs)
    // Where the device counts its kernels' time (cbDeviceGetKernelTime), no launch is timed with
    // events: each device's last reading, and what devices that count from zero again (reopened)
    // had counted before.
    bool device_counts = false;
    std::map<int, unsigned long long> device_ns;
    unsigned long long reset_ns = 0;
};

double counted_ms_locked(const counters& c) {
    unsigned long long ns = c.reset_ns;
    for (const auto& [device, reading] : c.device_ns) ns += reading;
    return static_cast<double>(ns) / 1e6;
}

// The current device's count, when it keeps one.
void read_device_count_locked(counters& c) {
    int device = 0;
    unsigned long long ns = 0;
    if (cbGetDevice(&device) != cbSuccess || cbDeviceGetKernelTime(&ns) != cbSuccess) return;
    unsigned long long& last = c.device_ns[device];
    if (ns < last) c.reset_ns += last;  // the device counts from zero again
    last = ns;
}

counters& totals() {
    static counters c;
    return c;
}

// An event for timing, from the spares when there is one.
cbEvent_t take_event() {
    counters& c = totals();
    {
        std::lock_guard lock(c.mutex);
        if (!c.spare.empty()) {
            cbEvent_t e = c.spare.back();
            c.spare.pop_back();
            return e;
        }
    }
    cbEvent_t e = nullptr;
    return cbEventCreate(&e) == cbSuccess ? e : nullptr;
}

void give_back_locked(counters& c, cbEvent_t e) {
    if (e) c.spare.push_back(e);
}

// secure_getenv: a set-uid program ignores the variable (a user could aim it at any file).
const char* summary_path() {
    static const char* path = secure_getenv("CUDABRIDGE_RUN_SUMMARY");
    return path && *path ? path : nullptr;
}

// The file `run` made for us (0600, its own). Never created here, and never through a link:
// a path another user could have planted gets no write from this process.
std::FILE* open_summary(const char* path) {
    const int fd = ::open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
        ::close(fd);
        return nullptr;
    }
    std::FILE* f = ::fdopen(fd, "w");
    if (!f) ::close(fd);
    return f;
}

// Written with no call into the runtime: at exit its thread-local state may be gone. Launches
// the program never waited for are not in kernel_ms. `final`: written at exit; a program that
// aborts leaves the last count made while it ran.
void write_summary_locked(counters& c, bool final) {
    const char* path = summary_path();
    if (!path) return;
    std::FILE* f = open_summary(path);
    if (!f) return;
    std::fprintf(f,
                 "{\"kernels_launched\": %llu, \"bytes_host_to_device\": %llu, \"bytes_device_to_host\": %llu, "
                 "\"bytes_device_to_device\": %llu, \"kernel_time_ms\": %.6f, \"kernel_time_source\": \"%s\", "
                 "\"final\": %s}\n",
                 c.kernels.load(), c.h2d.load(), c.d2h.load(), c.d2d.load(),
                 c.device_counts ? counted_ms_locked(c) : c.kernel_ms, c.simulated ? "modeled" : "measured",
                 final ? "true" : "false");
    std::fclose(f);
}

void write_summary() {
    counters& c = totals();
    std::lock_guard lock(c.mutex);
    write_summary_locked(c, true);
}

// While the program runs, at most once a second: what it did so far survives an abort.
void write_summary_now_and_then() {
    static std::atomic<int64_t> last_ns{0};
    const int64_t now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    int64_t last = last_ns.load(std::memory_order_relaxed);
    if (!summary_path() || now - last < 1'000'000'000 || !last_ns.compare_exchange_strong(last, now)) return;
    counters& c = totals();
    std::lock_guard lock(c.mutex);
    write_summary_locked(c, false);
}

}  // namespace

namespace {
std::atomic<bool> started_ok{false};
}  // namespace

bool runtime_started() { return started_ok.load(); }

cudaError_t ensure_runtime() {
    static const cbError_t started = [] {
        const cbError_t e = cbInit();
        // After cbInit and the counters exist, so that the summary is written at exit before
        // either is torn down (exit runs handlers and static destructors in reverse order).
        counters& c = totals();
        int device = 0;
        cbDeviceProp prop{};
        c.simulated = e == cbSuccess && cbGetDevice(&device) == cbSuccess &&
                      cbGetDeviceProperties(&prop, device) == cbSuccess && prop.isSimulated != 0;
        unsigned long long ns = 0;
        c.device_counts = e == cbSuccess && summary_path() && cbDeviceGetKernelTime(&ns) == cbSuccess;
        (void)cbGetLastError();  // a family that cannot tell is not the program's error
        if (e == cbSuccess && summary_path()) std::atexit(write_summary);
        started_ok = e == cbSuccess;
        return e;
    }();
    return started == cbSuccess ? cudaSuccess : record(started);
}

static void settle_timings_counted(bool wait) {
    counters& c = totals();
    std::lock_guard lock(c.mutex);
    if (c.device_counts && summary_path()) {
        // After the program's own synchronizing call; `wait` (before a reset) waits here.
        if (wait) (void)cbDeviceSynchronize();
        read_device_count_locked(c);
        (void)cbGetLastError();
        return;
    }
    if (c.timed.empty()) return;
    // In launch order; without `wait`, up to the first that has not finished (the rest are
    // folded by a later call), so that a device running behind costs one query per launch.
    size_t folded = 0;
    for (auto [start, end] : c.timed) {
        // Without `wait`, the elapsed time is the query: it answers cbErrorNotReady until both
        // events have completed.
        float ms = 0;
        if (wait) {
            if (cbEventSynchronize(end) == cbSuccess && cbEventElapsedTime(&ms, start, end) == cbSuccess)
                c.kernel_ms += ms;
        } else {
            if (cbEventElapsedTime(&ms, start, end) != cbSuccess) break;
            c.kernel_ms += ms;
        }
        give_back_locked(c, start);
        give_back_locked(c, end);
        ++folded;
    }
    c.timed.erase(c.timed.begin(), c.timed.begin() + static_cast<std::ptrdiff_t>(folded));
    (void)cbGetLastError();  // these calls' own answers are not the program's errors
}

void settle_timings(bool wait) {
    settle_timings_counted(wait);
    write_summary_now_and_then();
}

void note_copy(cudaMemcpyKind kind, size_t bytes) {
    counters& c = totals();
    if (kind == cudaMemcpyHostToDevice) c.h2d += bytes;
    if (kind == cudaMemcpyDeviceToHost) c.d2h += bytes;
    if (kind == cudaMemcpyDeviceToDevice) c.d2d += bytes;
}

void forget_timing_events() {
    counters& c = totals();
    std::lock_guard lock(c.mutex);
    c.timed.clear();
    c.spare.clear();
}

launch_timer::launch_timer(cudaStream_t stream) : stream_(cb_stream(stream)) {
    if (!summary_path() || totals().device_counts) return;
    start_ = take_event();
    if (start_ && cbEventRecord(start_, stream_) != cbSuccess) {
        cbEventDestroy(start_);
        start_ = nullptr;
    }
}

launch_timer::~launch_timer() {
    if (start_) cbEventDestroy(start_);  // the launch failed: nothing to time
}

void launch_timer::launched() {
    counters& c = totals();
    ++c.kernels;
    write_summary_now_and_then();
    if (!start_) return;
    cbEvent_t start = std::exchange(start_, nullptr);
    cbEvent_t end = nullptr;
    end = take_event();
    if (!end || cbEventRecord(end, stream_) != cbSuccess) {
        cbEventDestroy(start);
        if (end) cbEventDestroy(end);
        return;
    }
    bool fold = false;
    {
        std::lock_guard lock(c.mutex);
        c.timed.emplace_back(start, end);
        fold = c.timed.size() >= 256;
    }
    if (fold) settle_timings(false);
}

}  // namespace cudabridge::cudart

#include "runtime/interprocess_event.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace cudabridge::host {

namespace {

constexpr uint64_t page_magic = 0x31544e4556454243ull;  // "CBEVENT1"
constexpr size_t ring = 128;                            // records a late waiter can still tell apart

struct handle_record {
    uint64_t magic;
    int32_t pid;
    int32_t fd;
    uint64_t token;
};
static_assert(sizeof(handle_record) <= sizeof(cbIpcEventHandle_t));

std::string file_name(uint64_t token) {
    char text[48];
    std::snprintf(text, sizeof text, "cudabridge-event-%016llx", static_cast<unsigned long long>(token));
    return text;
}

bool process_alive(int32_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

struct interprocess_event::page {
    uint64_t magic;
    std::atomic<uint64_t> recorded;       // tickets handed out
    std::atomic<uint64_t> done[ring];     // done[t % ring] == t once record t's work is done
    std::atomic<int32_t> recorder[ring];  // who took ticket t
};
static_assert(sizeof(std::atomic<uint64_t>) == 8 && std::atomic<uint64_t>::is_always_lock_free);

interprocess_event::interprocess_event(page* p, int fd, const cbIpcEventHandle_t& origin)
    : page_(p), fd_(fd), origin_(origin) {}

interprocess_event::~interprocess_event() {
    munmap(page_, sizeof(page));
    close(fd_);
}

std::shared_ptr<interprocess_event> interprocess_event::create(std::string& error) {
    std::random_device random;
    const uint64_t token = (uint64_t{random()} << 32) ^ random();
    const int fd = memfd_create(file_name(token).c_str(), MFD_CLOEXEC);
    void* p = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, sizeof(page)) == 0)
        p = mmap(nullptr, sizeof(page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        error = std::string("cannot make the event's shared page: ") + std::strerror(errno);
        if (fd >= 0) close(fd);
        return nullptr;
    }
    auto* shared = static_cast<page*>(p);  // a new file reads as zeros: nothing recorded
    shared->magic = page_magic;
    cbIpcEventHandle_t origin{};
    const handle_record r{page_magic, static_cast<int32_t>(getpid()), fd, token};
    std::memcpy(&origin, &r, sizeof r);
    return std::shared_ptr<interprocess_event>(new interprocess_event(shared, fd, origin));
}

std::shared_ptr<interprocess_event> interprocess_event::open(const cbIpcEventHandle_t& handle, std::string& error,
                                                             cbError_t& e) {
    handle_record r{};
    std::memcpy(&r, &handle, sizeof r);
    e = cbErrorInvalidValue;
    if (r.magic != page_magic || r.pid <= 0 || r.fd < 0) {
        error = "the handle is not one cbIpcGetEventHandle made";
        return nullptr;
    }
    const std::string path = "/proc/" + std::to_string(r.pid) + "/fd/" + std::to_string(r.fd);
    std::array<char, 256> target{};
    e = cbErrorInvalidResourceHandle;
    if (readlink(path.c_str(), target.data(), target.size() - 1) < 0 ||
        std::string(target.data()).rfind("/memfd:" + file_name(r.token), 0) != 0) {
        error = "the event is gone: process " + std::to_string(r.pid) + " destroyed it or exited";
        return nullptr;
    }
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    struct stat st {};
    void* p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == sizeof(page))
        p = mmap(nullptr, sizeof(page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        error = "cannot open the event process " + std::to_string(r.pid) + " shared: " + std::strerror(errno);
        if (fd >= 0) close(fd);
        return nullptr;
    }
    return std::shared_ptr<interprocess_event>(new interprocess_event(static_cast<page*>(p), fd, handle));
}

// An event opened from another process's handle gives that handle: its descriptor names the page.
cbIpcEventHandle_t interprocess_event::handle() const { return origin_; }

uint64_t interprocess_event::take_ticket() {
    const uint64_t t = page_->recorded.fetch_add(1) + 1;
    page_->recorder[t % ring].store(static_cast<int32_t>(getpid()));
    return t;
}

void interprocess_event::mark_done(uint64_t ticket) {
    std::atomic<uint64_t>& slot = page_->done[ticket % ring];
    uint64_t seen = slot.load();
    while (seen < ticket && !slot.compare_exchange_weak(seen, ticket)) {
    }
}

uint64_t interprocess_event::latest() const { return page_->recorded.load(); }

bool interprocess_event::recorded_here(uint64_t ticket) const {
    return page_->recorder[ticket % ring].load() == static_cast<int32_t>(getpid());
}

// A slot a later record has taken over says nothing of this one, which is then long done or
// waited past: it counts as done.
bool interprocess_event::done(uint64_t ticket) const {
    return ticket == 0 || page_->done[ticket % ring].load() >= ticket || latest() >= ticket + ring;
}

cbError_t interprocess_event::wait(uint64_t ticket, std::string& error) const {
    using namespace std::chrono;
    auto pause = microseconds(20);
    auto next_check = steady_clock::now() + milliseconds(100);
    while (!done(ticket)) {
        std::this_thread::sleep_for(pause);
        pause = std::min<microseconds>(pause * 2, milliseconds(2));
        if (steady_clock::now() < next_check) continue;
        next_check = steady_clock::now() + milliseconds(100);
        const int32_t pid = page_->recorder[ticket % ring].load();
        if (!process_alive(pid) && !done(ticket)) {
            error = "process " + std::to_string(pid) +
                    " recorded the interprocess event and exited before its work was done";
            return cbErrorLaunchFailure;
        }
    }
    return cbSuccess;
}

}  // namespace cudabridge::host

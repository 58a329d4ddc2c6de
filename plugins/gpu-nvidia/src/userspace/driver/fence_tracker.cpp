#include "userspace/driver/fence_tracker.hpp"

#include "userspace/driver/device_word.hpp"
#include "userspace/driver/status_text.hpp"

#include "common/hw/registers.hpp"

#include <algorithm>
#include <chrono>

namespace cudabridge::nv {

namespace {
using clock = std::chrono::steady_clock;
// How often a wait that expects an interrupt re-checks anyway: a removed device raises none.
constexpr std::chrono::milliseconds interrupt_recheck{10};
}  // namespace

fence_tracker::fence_tracker(register_access& regs, device_loss& loss, const userspace_options& options)
    : regs_(regs), loss_(loss), options_(options) {}

cb_status fence_tracker::read_progress(uint64_t& out, std::string& error) {
    std::lock_guard lock(progress_mutex_);  // the LO read latches HI: one reader at a time
    return regs_.read64(hw::reg::progress_lo, hw::reg::progress_hi, out, error);
}

// How long the device has been still: the progress registers are read every quarter of the
// timeout, the first time a quarter into the wait (most waits end sooner and read nothing), so a
// hang is called between 1 and 1.25 timeouts after the last move seen. A read that fails counts
// as no move (the wait's own checks report a lost device).
class fence_tracker::stall_clock {
public:
    stall_clock(fence_tracker& tracker, clock::duration timeout)
        : tracker_(tracker), timeout_(timeout), last_read_(clock::now()) {}

    bool stalled(clock::time_point now) {
        if (now - last_read_ >= timeout_ / 4) {
            last_read_ = now;
            uint64_t count = count_;
            std::string ignored;
            const bool read = tracker_.read_progress(count, ignored) == CB_OK;
            if (!watching_ || (read && count != count_)) {
                count_ = count;
                last_move_ = now;
                watching_ = true;
            }
        }
        return watching_ && now - last_move_ >= timeout_;
    }
    // When to look again if nothing wakes the wait.
    clock::time_point next_look() const { return last_read_ + timeout_ / 4; }

private:
    fence_tracker& tracker_;
    const clock::duration timeout_;
    clock::time_point last_move_, last_read_;
    uint64_t count_ = 0;
    bool watching_ = false;  // the first read is the baseline
};

void fence_tracker::interrupt_handler(void* user, uint32_t) {
    auto* self = static_cast<fence_tracker*>(user);
    self->interrupt_seen_.store(true, std::memory_order_release);
    self->wake_all();
}

void fence_tracker::wake_all() {
    {
        std::lock_guard lock(wake_mutex_);
        ++wake_seq_;
    }
    wake_.notify_all();
}

void fence_tracker::track(uint64_t fence, std::shared_ptr<error_sink> sink, std::string what) {
    std::lock_guard lock(progress_mutex_);
    submitted_ = std::max(submitted_, fence);
    owners_.push_back(owner{fence, std::move(sink), std::move(what)});
}

uint64_t fence_tracker::completed() const {
    std::lock_guard lock(progress_mutex_);
    return completed_;
}

uint64_t fence_tracker::submitted() const {
    std::lock_guard lock(progress_mutex_);
    return submitted_;
}

cb_status fence_tracker::refresh(std::string& error) {
    std::lock_guard lock(progress_mutex_);
    uint64_t reg = 0;
    if (cb_status st = regs_.read64(hw::reg::fence_done_lo, hw::reg::fence_done_hi, reg, error); st != CB_OK) return st;
    if (cb_status st = read_errors(error); st != CB_OK) return st;
    // A value past anything submitted is not a completion (a register left over from before a
    // reset, say).
    if (reg <= submitted_) completed_ = std::max(completed_, reg);
    if (interrupts_) acknowledge_interrupts();
    forget_completed();
    return CB_OK;
}

uint64_t fence_tracker::fence_word() const {
    uint64_t* word = fence_word_.load();
    return word != nullptr ? read_device_word(word) : 0;
}

uint64_t fence_tracker::completed_hint() const {
    const uint64_t word = fence_word();
    std::lock_guard lock(progress_mutex_);
    return word <= submitted_ ? std::max(word, completed_) : completed_;
}

cb_status fence_tracker::read_errors(std::string& error) {
    uint32_t status = 0;
    if (cb_status st = regs_.read_sane(hw::reg::status, status, error); st != CB_OK) return st;
    // A ring the device turned off runs nothing more. Its error record can have been overwritten
    // before it was read (a command failed, then the next fetch failed and turned the ring off):
    // the ring's state itself says the queued work is lost.
    if ((status & (hw::status_ring_on | hw::status_error)) == 0 && completed_ < submitted_) {
        record_failure(0, last_code_seen_, CB_OK, false, "the command ring is off");
        return CB_OK;
    }
    if ((status & hw::status_error) == 0) return CB_OK;
    uint64_t fence = 0, again = 0;
    uint32_t code = 0, code_again = 0, detail = 0, detail_again = 0;
    if (cb_status st = regs_.read64(hw::reg::error_fence_lo, hw::reg::error_fence_hi, fence, error); st != CB_OK)
        return st;
    if (cb_status st = regs_.read(hw::reg::error_code, code, error); st != CB_OK) return st;
    if (cb_status st = regs_.read(hw::reg::error_detail, detail, error); st != CB_OK) return st;
    const std::string text = read_error_text();
    // Clearing INTR_STATUS.error clears STATUS.error; a failure that lands between the reads and
    // the clear is caught by reading the record once more.
    if (cb_status st = regs_.write(hw::reg::intr_status, hw::intr_error, error); st != CB_OK) return st;
    if (cb_status st = regs_.read64(hw::reg::error_fence_lo, hw::reg::error_fence_hi, again, error); st != CB_OK)
        return st;
    if (cb_status st = regs_.read(hw::reg::error_code, code_again, error); st != CB_OK) return st;
    if (cb_status st = regs_.read(hw::reg::error_detail, detail_again, error); st != CB_OK) return st;
    const bool ring_on = (status & hw::status_ring_on) != 0;
    record_failure(fence, static_cast<cb_status>(code), static_cast<cb_status>(detail), ring_on, text);
    if (again != fence || code_again != code)
        record_failure(again, static_cast<cb_status>(code_again), static_cast<cb_status>(detail_again), ring_on,
                       read_error_text());
    return CB_OK;
}

// What the device says the failure was (ERROR_TEXT): the kernel, the block, the fault. A device
// without the window reads zeros: no text.
std::string fence_tracker::read_error_text() {
    std::string text;
    std::string ignored;
    for (uint32_t off = 0; off < hw::reg::error_text_bytes; off += 4) {
        uint32_t word = 0;
        if (regs_.read(hw::reg::error_text + off, word, ignored) != CB_OK || word == 0xFFFFFFFFu) return {};
        for (int i = 0; i < 4; ++i) {
            const char c = static_cast<char>((word >> (8 * i)) & 0xFF);
            if (c == '\0') return text;
            text.push_back(c);
        }
    }
    return text;
}

void fence_tracker::record_failure(uint64_t fence, cb_status code, cb_status detail, bool ring_on,
                                   const std::string& text) {
    if (code == CB_OK) code = CB_ERR_INTERNAL;  // an error without a code is still an error
    last_code_seen_ = code;
    if (fence == 0) {
        // A ring error, not a command's: a doorbell past the ring, or a ring fetch that failed,
        // after which the device turns the ring off and nothing queued will run.
        std::string message =
            "the device reported a ring error: " + status_name(code) + (text.empty() ? "" : " (" + text + ")");
        if (ring_on) {
            unclaimed_.record(code, message);
            return;
        }
        message += "; it turned the command ring off, abandoning the queued work";
        for (const owner& o : owners_)
            if (o.fence > completed_ && o.sink) o.sink->record(code, message);
        unclaimed_.record(code, message);
        completed_ = submitted_;
        ring_lost_.store(true);
        return;
    }
    if (fence <= last_error_fence_) return;  // reported already
    last_error_fence_ = fence;
    const owner* o = find_owner(fence);
    const std::string message = "the device failed " + (o ? o->what : std::string("a command")) + " (fence " +
                                std::to_string(fence) + "): " + status_name(code) +
                                (detail != CB_OK ? " (a kernel fault: it returned " + status_name(detail) + ")" : "") +
                                (text.empty() ? "" : ": " + text);
    if (o && o->sink)
        o->sink->record(code, message);
    else
        unclaimed_.record(code, message);
}

void fence_tracker::acknowledge_interrupts() {
    if (!interrupt_seen_.exchange(false)) return;
    std::string ignored;
    uint32_t pending = 0;
    // Write-one-to-clear the fence cause (the error cause is cleared where the error is read).
    if (regs_.read(hw::reg::intr_status, pending, ignored) == CB_OK && pending != 0xFFFFFFFFu &&
        (pending & hw::intr_fence) != 0)
        regs_.write(hw::reg::intr_status, hw::intr_fence, ignored);
}

void fence_tracker::forget_completed() {
    while (!owners_.empty() && owners_.front().fence <= completed_) owners_.pop_front();
}

const fence_tracker::owner* fence_tracker::find_owner(uint64_t fence) const {
    auto it =
        std::lower_bound(owners_.begin(), owners_.end(), fence, [](const owner& o, uint64_t f) { return o.fence < f; });
    return it != owners_.end() && it->fence == fence ? &*it : nullptr;
}

cb_status fence_tracker::wait_fence(uint64_t fence, std::string& error) {
    // The registers are read at the start, whenever the fence word shows the fence done, and at
    // least every 10 ms (a removed device changes no word); in between, polling only looks at
    // the word in host memory and costs the link nothing.
    auto last_read = clock::time_point{};
    return wait_until(
        [&](std::string& message) -> cb_status {
            const auto now = clock::now();
            if (fence_word() < fence && now - last_read < interrupt_recheck && completed() < fence) return CB_ERR_BUSY;
            last_read = now;
            if (cb_status st = refresh(message); st != CB_OK) return st;
            return completed() >= fence ? CB_OK : CB_ERR_BUSY;
        },
        [&] {
            return "fence " + std::to_string(fence) + " (last completed fence " + std::to_string(completed()) + ")";
        },
        error);
}

cb_status fence_tracker::wait_until(const std::function<cb_status(std::string&)>& check,
                                    const std::function<std::string()>& what, std::string& error) {
    const auto timeout = std::chrono::duration_cast<clock::duration>(std::chrono::milliseconds(options_.timeout_ms));
    stall_clock still(*this, timeout);
    const auto period = interrupts_ ? std::chrono::duration_cast<clock::duration>(interrupt_recheck)
                                    : std::chrono::duration_cast<clock::duration>(
                                          std::chrono::microseconds(std::max<uint64_t>(options_.poll_interval_us, 1)));
    for (;;) {
        uint64_t seq = 0;
        {
            std::lock_guard lock(wake_mutex_);
            seq = wake_seq_;
        }
        std::string message;
        const cb_status st = check(message);
        if (st == CB_OK) return CB_OK;
        if (loss_.lost()) {
            error = "waiting for " + what() + ": " + loss_.reason();
            return loss_.status();
        }
        if (st != CB_ERR_BUSY) {
            error = message;
            return st;
        }
        const auto now = clock::now();
        if (still.stalled(now)) {
            error = "the device made no progress for " + std::to_string(options_.timeout_ms) + " ms waiting for " +
                    what() + ": a hung engine or a kernel that does not finish";
            return CB_ERR_TIMEOUT;
        }
        std::unique_lock lock(wake_mutex_);
        wake_.wait_until(lock, std::min(still.next_look(), now + period), [&] { return wake_seq_ != seq; });
    }
}

void fence_tracker::abandon_through(uint64_t fence, cb_status code, const std::string& message) {
    {
        std::lock_guard lock(progress_mutex_);
        bool unowned = false;  // default-stream work: device_synchronize must hear of it too
        for (auto it = owners_.begin(); it != owners_.end() && it->fence <= fence; ++it) {
            if (it->fence <= completed_) continue;
            if (it->sink)
                it->sink->record(code, message);
            else
                unowned = true;
        }
        if (unowned) unclaimed_.record(code, message);
        completed_ = std::max(completed_, fence);
        submitted_ = std::max(submitted_, fence);
        forget_completed();
    }
    wake_all();
}

void fence_tracker::release_all() {
    {
        std::lock_guard lock(progress_mutex_);
        owners_.clear();
        completed_ = submitted_;
    }
    wake_all();
}

}  // namespace cudabridge::nv

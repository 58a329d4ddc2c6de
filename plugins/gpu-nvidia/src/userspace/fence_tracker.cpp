#include "userspace/fence_tracker.hpp"

#include "userspace/device_word.hpp"
#include "userspace/status_text.hpp"

#include "hw/registers.hpp"

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
    owners_[fence] = owner{std::move(sink), std::move(what)};
}

void fence_tracker::hold_until(uint64_t fence, held_resources resources) {
    std::lock_guard lock(progress_mutex_);
    if (fence <= completed_) return;  // already done: released on return
    held_.emplace(fence, std::move(resources));
}

std::optional<held_resources> fence_tracker::take_spare(size_t size) {
    std::lock_guard lock(progress_mutex_);
    for (auto it = spares_.begin(); it != spares_.end(); ++it)
        if (it->mapping.size() >= size) {
            held_resources r = std::move(*it);
            spares_.erase(it);
            return r;
        }
    return std::nullopt;
}

void fence_tracker::recycle_completed_blocks() {
    const uint64_t word = fence_word();
    std::lock_guard lock(progress_mutex_);
    if (word > submitted_ || spares_.size() >= max_spares) return;  // a word from before a reset says nothing
    for (auto it = held_.begin(); it != held_.end() && it->first <= word && spares_.size() < max_spares;) {
        if (it->second.mapping.mapped() && !it->second.buffer.empty()) {
            spares_.push_back(std::move(it->second));
            it = held_.erase(it);
        } else {
            ++it;
        }
    }
}

void fence_tracker::drop_spares() {
    std::vector<held_resources> dropped;  // unmapped after the lock is dropped
    std::lock_guard lock(progress_mutex_);
    dropped.swap(spares_);
}

cb_status fence_tracker::wait_for_oldest_held(std::string& error) {
    uint64_t fence = 0;
    {
        std::lock_guard lock(progress_mutex_);
        if (held_.empty()) return CB_ERR_NOT_FOUND;
        fence = held_.begin()->first;
    }
    return wait_fence(fence, error);
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
    std::multimap<uint64_t, held_resources> done;  // released after the lock is dropped
    std::lock_guard lock(progress_mutex_);
    uint64_t reg = 0;
    if (cb_status st = regs_.read64(hw::reg::fence_done_lo, hw::reg::fence_done_hi, reg, error); st != CB_OK)
        return st;
    if (cb_status st = read_errors(error); st != CB_OK) return st;
    // A value past anything submitted is not a completion (a register left over from before a
    // reset, say).
    if (reg <= submitted_) completed_ = std::max(completed_, reg);
    if (interrupts_) acknowledge_interrupts();
    collect_completed(done);
    for (auto it = done.begin(); it != done.end() && spares_.size() < max_spares;) {
        if (it->second.mapping.mapped() && !it->second.buffer.empty()) {
            spares_.push_back(std::move(it->second));
            it = done.erase(it);
        } else {
            ++it;
        }
    }
    return CB_OK;
}

uint64_t fence_tracker::fence_word() const {
    uint64_t* word = fence_word_.load();
    return word != nullptr ? read_device_word(word) : 0;
}

cb_status fence_tracker::read_errors(std::string& error) {
    uint32_t status = 0;
    if (cb_status st = regs_.read_sane(hw::reg::status, status, error); st != CB_OK) return st;
    if ((status & hw::status_error) == 0) return CB_OK;
    uint64_t fence = 0, again = 0;
    uint32_t code = 0, code_again = 0, detail = 0, detail_again = 0;
    if (cb_status st = regs_.read64(hw::reg::error_fence_lo, hw::reg::error_fence_hi, fence, error); st != CB_OK)
        return st;
    if (cb_status st = regs_.read(hw::reg::error_code, code, error); st != CB_OK) return st;
    if (cb_status st = regs_.read(hw::reg::error_detail, detail, error); st != CB_OK) return st;
    // Clearing INTR_STATUS.error clears STATUS.error; a failure that lands between the reads and
    // the clear is caught by reading the record once more.
    if (cb_status st = regs_.write(hw::reg::intr_status, hw::intr_error, error); st != CB_OK) return st;
    if (cb_status st = regs_.read64(hw::reg::error_fence_lo, hw::reg::error_fence_hi, again, error); st != CB_OK)
        return st;
    if (cb_status st = regs_.read(hw::reg::error_code, code_again, error); st != CB_OK) return st;
    if (cb_status st = regs_.read(hw::reg::error_detail, detail_again, error); st != CB_OK) return st;
    const bool ring_on = (status & hw::status_ring_on) != 0;
    record_failure(fence, static_cast<cb_status>(code), static_cast<cb_status>(detail), ring_on);
    if (again != fence || code_again != code)
        record_failure(again, static_cast<cb_status>(code_again), static_cast<cb_status>(detail_again), ring_on);
    return CB_OK;
}

void fence_tracker::record_failure(uint64_t fence, cb_status code, cb_status detail, bool ring_on) {
    if (code == CB_OK) code = CB_ERR_INTERNAL;  // an error without a code is still an error
    if (fence == 0) {
        // A ring error, not a command's: a doorbell past the ring, or a ring fetch that failed,
        // after which the device turns the ring off and nothing queued will run.
        std::string message = "the device reported a ring error: " + status_name(code);
        if (ring_on) {
            unclaimed_.record(code, message);
            return;
        }
        message += "; it turned the command ring off, abandoning the queued work";
        for (auto& [f, o] : owners_)
            if (f > completed_ && o.sink) o.sink->record(code, message);
        unclaimed_.record(code, message);
        completed_ = submitted_;
        return;
    }
    if (fence <= last_error_fence_) return;  // reported already
    last_error_fence_ = fence;
    auto it = owners_.find(fence);
    const std::string message = "the device failed " +
                                (it != owners_.end() ? it->second.what : std::string("a command")) + " (fence " +
                                std::to_string(fence) + "): " + status_name(code) +
                                (detail != CB_OK ? " (a kernel fault: it returned " + status_name(detail) + ")" : "");
    if (it != owners_.end() && it->second.sink)
        it->second.sink->record(code, message);
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

void fence_tracker::collect_completed(std::multimap<uint64_t, held_resources>& done) {
    owners_.erase(owners_.begin(), owners_.upper_bound(completed_));
    auto end = held_.upper_bound(completed_);
    for (auto it = held_.begin(); it != end;) {
        auto node = held_.extract(it++);
        done.insert(std::move(node));
    }
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
    const auto deadline = clock::now() + std::chrono::milliseconds(options_.timeout_ms);
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
            return CB_ERR_DEVICE_LOST;
        }
        if (st != CB_ERR_BUSY) {
            error = message;
            return st;
        }
        const auto now = clock::now();
        if (now >= deadline) {
            error = "timed out after " + std::to_string(options_.timeout_ms) + " ms waiting for " + what();
            return CB_ERR_TIMEOUT;
        }
        std::unique_lock lock(wake_mutex_);
        wake_.wait_until(lock, std::min(deadline, now + period), [&] { return wake_seq_ != seq; });
    }
}

void fence_tracker::abandon_through(uint64_t fence, cb_status code, const std::string& message) {
    std::multimap<uint64_t, held_resources> done;
    std::vector<held_resources> spares;  // a reset or a loss: no mapping is reused after it
    {
        std::lock_guard lock(progress_mutex_);
        spares.swap(spares_);
        for (auto it = owners_.begin(); it != owners_.end() && it->first <= fence; ++it)
            if (it->first > completed_ && it->second.sink) it->second.sink->record(code, message);
        completed_ = std::max(completed_, fence);
        submitted_ = std::max(submitted_, fence);
        collect_completed(done);
    }
    wake_all();
}

void fence_tracker::release_all() {
    std::multimap<uint64_t, held_resources> done;
    std::vector<held_resources> spares;
    {
        std::lock_guard lock(progress_mutex_);
        spares.swap(spares_);
        done.swap(held_);
        owners_.clear();
        completed_ = submitted_;
    }
    wake_all();
}

}  // namespace cudabridge::nv

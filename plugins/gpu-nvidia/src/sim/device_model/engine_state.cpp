#include "sim/device_model/engine_state.hpp"

#include "common/hw/commands.hpp"
#include "common/hw/registers.hpp"

#include <bit>
#include <chrono>
#include <utility>

namespace cudabridge::nv {
namespace {

constexpr uint32_t min_ring_entries = 2;
constexpr uint32_t max_ring_entries = 65536;

bool valid_ring(uint64_t base, uint32_t entries) {
    if (base == 0 || entries < min_ring_entries || entries > max_ring_entries || !std::has_single_bit(entries))
        return false;
    return base <= UINT64_MAX - uint64_t{entries} * sizeof(hw::command);
}

}  // namespace

engine_state::engine_state(modeled_clock& clock) : clock_(clock) {}

// Busy while a command is queued or running (get_ passes a command only once it finished),
// not for the processor's bookkeeping after the ring drained.
void engine_state::update_clock_locked() { clock_.set_busy(!stop_ && runnable_locked()); }

// ---- registers ----------------------------------------------------------------------------------

uint32_t engine_state::status() const {
    std::lock_guard lock(m_);
    uint32_t s = 0;
    if (pmc_enable_ & 1u) s |= hw::status_ready;
    if (ring_on_) s |= hw::status_ring_on;
    if (running_ || (ring_on_ && get_ != put_)) s |= hw::status_busy;
    if (error_) s |= hw::status_error;
    return s;
}

uint32_t engine_state::pmc_enable() const {
    std::lock_guard lock(m_);
    return pmc_enable_;
}

void engine_state::set_pmc_enable(uint32_t value) {
    std::lock_guard lock(m_);
    pmc_enable_ = value;
    update_clock_locked();
    signal();
}

uint64_t engine_state::ring_base() const {
    std::lock_guard lock(m_);
    return ring_base_;
}

void engine_state::set_ring_base(uint64_t iova) {
    std::lock_guard lock(m_);
    if (!ring_on_) ring_base_ = iova;
}

uint32_t engine_state::ring_entries() const {
    std::lock_guard lock(m_);
    return ring_entries_;
}

void engine_state::set_ring_entries(uint32_t entries) {
    std::lock_guard lock(m_);
    if (!ring_on_) ring_entries_ = entries;
}

uint32_t engine_state::ring_control() const {
    std::lock_guard lock(m_);
    return ring_on_ ? 1u : 0u;
}

void engine_state::set_ring_control(uint32_t value) {
    std::lock_guard lock(m_);
    const bool on = value & 1u;
    if (on == ring_on_) return;
    if (on) {
        if (!valid_ring(ring_base_, ring_entries_)) return;  // refused: reads back 0
        // A fresh ring: index 0, and nothing taken from a previous one completes into it.
        ++generation_;
        get_ = put_ = 0;
    }
    ring_on_ = on;
    update_clock_locked();
    signal();
}

uint32_t engine_state::put() const {
    std::lock_guard lock(m_);
    return put_;
}

void engine_state::doorbell(uint32_t put) {
    {
        std::lock_guard lock(m_);
        if (!ring_on_) return;
        if (put >= ring_entries_) {
            msi_pending_ |= record_error_locked(CB_ERR_INVALID_ARGUMENT, 0);
        } else {
            put_ = put;
        }
        update_clock_locked();
    }
    // After the lock is let go: the command processor woken here would otherwise block on it at
    // once, and the unlock would cost a second wake-up (a system call each, per doorbell).
    signal();
}

uint32_t engine_state::get() const {
    std::lock_guard lock(m_);
    return get_;
}

void engine_state::report_queued(const std::function<void(uint32_t)>& report) const {
    std::lock_guard lock(m_);
    report(ring_entries_ ? (put_ - get_) & (ring_entries_ - 1) : 0);
}

uint64_t engine_state::fence_address() const {
    std::lock_guard lock(m_);
    return fence_address_;
}

void engine_state::set_fence_address(uint64_t iova) {
    std::lock_guard lock(m_);
    fence_address_ = iova;
}

uint64_t engine_state::fence_done() const {
    std::lock_guard lock(m_);
    return fence_done_;
}

uint32_t engine_state::intr_status() const {
    std::lock_guard lock(m_);
    return intr_status_;
}

void engine_state::clear_intr_status(uint32_t bits) {
    std::lock_guard lock(m_);
    intr_status_ &= ~bits;
    if (bits & hw::intr_error) error_ = false;
}

uint32_t engine_state::intr_enable() const {
    std::lock_guard lock(m_);
    return intr_enable_;
}

void engine_state::set_intr_enable(uint32_t bits) {
    std::lock_guard lock(m_);
    intr_enable_ = bits & (hw::intr_fence | hw::intr_error);
}

cb_status engine_state::error_code() const {
    std::lock_guard lock(m_);
    return error_code_;
}

uint64_t engine_state::error_fence() const {
    std::lock_guard lock(m_);
    return error_fence_;
}

cb_status engine_state::error_detail() const {
    std::lock_guard lock(m_);
    return error_detail_;
}

uint32_t engine_state::error_text_word(uint32_t offset) const {
    std::lock_guard lock(m_);
    uint32_t word = 0;
    for (uint32_t i = 0; i < 4; ++i)
        if (offset + i < error_text_.size() && offset + i < hw::reg::error_text_bytes - 1)  // keep a NUL at the end
            word |= uint32_t{static_cast<uint8_t>(error_text_[offset + i])} << (8 * i);
    return word;
}

void engine_state::set_bus_master(bool enabled) {
    std::lock_guard lock(m_);
    bus_master_ = enabled;
    update_clock_locked();
    signal();
}

// ---- resets ---------------------------------------------------------------------------------------

void engine_state::clear_engines_locked() {
    ++generation_;
    ring_on_ = false;
    get_ = put_ = 0;
    fence_done_ = 0;
    intr_status_ = 0;
    error_ = false;
    error_code_ = CB_OK;
    error_fence_ = 0;
    error_detail_ = CB_OK;
    error_text_.clear();
    msi_pending_ = false;
    update_clock_locked();
}

void engine_state::soft_reset() {
    std::lock_guard lock(m_);
    clear_engines_locked();
}

void engine_state::hard_reset() {
    std::lock_guard lock(m_);
    clear_engines_locked();
    pmc_enable_ = 1;
    ring_base_ = 0;
    ring_entries_ = 0;
    fence_address_ = 0;
    intr_enable_ = 0;
}

// ---- processor side -------------------------------------------------------------------------------

bool engine_state::runnable_locked() const { return (pmc_enable_ & 1u) && bus_master_ && ring_on_ && get_ != put_; }

bool engine_state::record_error_locked(cb_status status, uint64_t fence, cb_status detail) {
    error_ = true;
    error_code_ = status;
    error_fence_ = fence;
    error_detail_ = detail;
    intr_status_ |= hw::intr_error;
    return (intr_enable_ & hw::intr_error) != 0;
}

void engine_state::signal() {
    changes_.fetch_add(1, std::memory_order_release);
    wake_.notify_all();  // no system call while the processor is still spinning (no waiter)
}

// A processor that just ran out of work looks for more for a short while before it sleeps: a
// program queueing calls back to back then costs no wake-up per call (on Linux a futex wake and
// a context switch, several microseconds in a VM), as CUDA's spin-then-yield scheduling avoids.
void engine_state::spin_while_unchanged(uint64_t seen) const {
    const auto until = std::chrono::steady_clock::now() + processor_spin;
    while (changes_.load(std::memory_order_acquire) == seen) {
        for (int i = 0; i < 64 && changes_.load(std::memory_order_relaxed) == seen; ++i) cpu_relax();
        if (std::chrono::steady_clock::now() >= until) return;
    }
}

bool engine_state::wait_for_work(ring_work& work, bool& send_msi) {
    std::unique_lock lock(m_);
    const auto ready = [&] { return stop_ || (msi_pending_ && bus_master_) || runnable_locked(); };
    if (!ready()) {
        const uint64_t seen = changes_.load(std::memory_order_acquire);
        lock.unlock();
        spin_while_unchanged(seen);
        lock.lock();
    }
    wake_.wait(lock, ready);
    if (stop_) return false;
    send_msi = bus_master_ && std::exchange(msi_pending_, false);
    work = ring_work{ring_base_, ring_entries_, get_, get_, generation_};
    if (runnable_locked()) {
        work.put = put_;
        running_ = true;
    }
    update_clock_locked();
    return true;
}

bool engine_state::complete(const ring_work& work, const completion& done, bool& keep_going) {
    std::lock_guard lock(m_);
    if (stop_ || generation_ != work.generation) {
        keep_going = false;
        return false;
    }
    get_ = done.next_get;
    if (done.fence) fence_done_ = done.fence_value;
    bool msi = false;
    if (done.status != CB_OK) {
        msi |= record_error_locked(done.status, done.fence_value, done.detail);
        error_text_ = done.text;
    }
    if (done.interrupt) {
        intr_status_ |= hw::intr_fence;
        msi |= (intr_enable_ & hw::intr_fence) != 0;
    }
    keep_going = runnable_locked();
    update_clock_locked();
    return msi;
}

uint64_t engine_state::retired(const ring_work& work, uint32_t next_get) {
    std::lock_guard lock(m_);
    if (stop_ || generation_ != work.generation) return fence_address_;
    if (next_get == put_) clock_.set_busy(false);
    return fence_address_;
}

bool engine_state::fetch_failed(const ring_work& work, cb_status status) {
    std::lock_guard lock(m_);
    if (stop_ || generation_ != work.generation) return false;
    ring_on_ = false;
    update_clock_locked();
    return record_error_locked(status, 0);
}

void engine_state::idle() {
    std::lock_guard lock(m_);
    running_ = false;
    update_clock_locked();
    idled_.notify_all();
}

void engine_state::wait_until_idle() {
    std::unique_lock lock(m_);
    idled_.wait(lock, [&] { return !running_; });
}

bool engine_state::current(uint64_t generation) const noexcept {
    return !stop_.load() && generation_.load() == generation;
}

void engine_state::start() {
    std::lock_guard lock(m_);
    stop_ = false;
    update_clock_locked();
}

void engine_state::stop() {
    std::lock_guard lock(m_);
    stop_ = true;
    update_clock_locked();
    signal();
}

}  // namespace cudabridge::nv

// Completion tracking for the command ring: which fence the device has completed, who is told
// when a command fails, and the one wait loop every blocking call uses.
//
// Progress is what the fence_done register says (read over MMIO, which also proves the device
// still answers). The fence word the device writes by DMA only tells a polling wait when reading
// the registers is worth it, so polling costs the link nothing between reads. With each read the
// status register is checked for status_error; a new error_fence is routed to the error_sink of
// the command that carried it (or kept for device_synchronize when no one owns it), with
// error_detail (what a failed host kernel returned) in its message, and the error is
// acknowledged (INTR_STATUS.error, write one to clear). A ring error (error_fence 0)
// that turned the ring off fails everything queued.
//
// Waiting: with interrupts the loop sleeps on a condition variable that the interrupt handler
// notifies (the handler only notifies, never blocks), re-checking every 10 ms because a removed
// device raises no interrupt; without them it re-checks every poll_interval_us. A device loss
// wakes every wait at once. A wait ends with CB_ERR_TIMEOUT only when the device made no progress
// (the PROGRESS registers: a command retired, a kernel block reached) for timeout_ms: a deep
// queue or a long kernel that keeps moving is waited for, however long it takes.
//
// Limitation: the device keeps one error record, so when two commands fail between two checks
// only the later one is reported.
#pragma once

#include "userspace/driver/device_loss.hpp"
#include "userspace/driver/error_sink.hpp"
#include "userspace/driver/register_access.hpp"
#include "userspace/driver/userspace_options.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

namespace cudabridge::nv {

class fence_tracker {
public:
    fence_tracker(register_access& regs, device_loss& loss, const userspace_options& options);

    // The host word the device writes each completed fence to (null: registers only).
    void set_fence_word(uint64_t* word) { fence_word_.store(word); }
    void set_interrupts(bool on) { interrupts_ = on; }

    // The transport's interrupt handler (user = this fence_tracker).
    static void interrupt_handler(void* user, uint32_t vector);
    // Wakes every wait so it re-checks (device loss).
    void wake_all();

    // A command was submitted with `fence`; its failure goes to `sink` (may be null), described
    // as `what` ("copy_h2d"). Call before ringing the doorbell, in fence order.
    void track(uint64_t fence, std::shared_ptr<error_sink> sink, std::string what);

    // Reads the device's progress and error state.
    cb_status refresh(std::string& error);
    uint64_t completed() const;
    uint64_t submitted() const;
    // The device's progress counter (commands retired, kernel blocks reached): only its changes
    // mean anything.
    cb_status read_progress(uint64_t& out, std::string& error);
    // What the device last wrote to the fence word (a hint: the registers confirm it).
    uint64_t fence_word() const;
    // The newest fence known done, by the registers or by the fence word, without reading the
    // registers: the device writes the word after a command, so host memory that command read
    // may be reused (a word from before a reset, past anything submitted, says nothing).
    uint64_t completed_hint() const;

    // Waits until the device completed `fence`.
    cb_status wait_fence(uint64_t fence, std::string& error);
    // Waits until `check` returns CB_OK; CB_ERR_BUSY means "not yet", anything else ends the wait
    // with check's message. `what` describes the wait in a timeout's message.
    cb_status wait_until(const std::function<cb_status(std::string&)>& check, const std::function<std::string()>& what,
                         std::string& error);

    // After a reset or a loss: every fence up to `fence` counts as completed, and their owners
    // are told `code` with `message`.
    void abandon_through(uint64_t fence, cb_status code, const std::string& message);
    // True once after the device turned its ring off and the queued work was failed: the next
    // submission starts the ring again.
    bool take_ring_lost() { return ring_lost_.exchange(false); }
    // A failure no owner claimed since the last call (device_synchronize reports it).
    cb_status take_unclaimed(std::string& message) { return unclaimed_.take(message); }
    // Drops every owner (close).
    void release_all();

private:
    struct owner {
        uint64_t fence;
        std::shared_ptr<error_sink> sink;
        std::string what;
    };

    cb_status read_errors(std::string& error);  // progress_mutex_ held
    void record_failure(uint64_t fence, cb_status code, cb_status detail, bool ring_on,
                        const std::string& text);   // progress_mutex_ held
    std::string read_error_text();                  // progress_mutex_ held
    void acknowledge_interrupts();                  // progress_mutex_ held
    void forget_completed();                        // progress_mutex_ held
    const owner* find_owner(uint64_t fence) const;  // progress_mutex_ held; null when untracked
    // For a wait: true once the device has not moved for timeout_ms (read every quarter of it).
    class stall_clock;

    register_access& regs_;
    device_loss& loss_;
    const userspace_options options_;
    bool interrupts_ = false;
    std::atomic<uint64_t*> fence_word_{nullptr};

    mutable std::mutex progress_mutex_;
    uint64_t completed_ = 0;
    uint64_t submitted_ = 0;
    uint64_t last_error_fence_ = 0;
    cb_status last_code_seen_ = CB_OK;  // the last failure's code (a ring found off says it again)
    std::atomic<bool> ring_lost_{false};
    std::deque<owner> owners_;  // who submitted each fence, in fence order
    error_sink unclaimed_;

    std::mutex wake_mutex_;
    std::condition_variable wake_;
    uint64_t wake_seq_ = 0;  // guarded by wake_mutex_
    std::atomic<bool> interrupt_seen_{false};
};

}  // namespace cudabridge::nv

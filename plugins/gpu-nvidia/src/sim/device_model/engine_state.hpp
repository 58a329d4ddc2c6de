// The registers of the command ring, fences, interrupts, errors and PMC_ENABLE, shared by the
// MMIO side (the transport's thread) and the command processor's thread, and the hand-over
// between them: a doorbell only records PUT and wakes the processor; the processor takes work,
// runs it without the lock and publishes each completion. Every MMIO access holds the lock for
// a few instructions only.
//
// Resets bump a generation number: work the processor took before the reset is abandoned (its
// completion is not published) and it checks the generation between DMA pieces.
//
// It tells the modeled clock when the engines are busy (work runnable or running), so PTIMER
// stops following wall time from the doorbell that queues work until the ring drains.
#pragma once

#include "sim/device_model/modeled_clock.hpp"

#include <cudabridge/abi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace cudabridge::nv {

// A stretch of the ring the processor may run: commands [get, put) at base.
struct ring_work {
    uint64_t base = 0;
    uint32_t entries = 0;
    uint32_t get = 0;
    uint32_t put = 0;
    uint64_t generation = 0;
};

// How one command ended.
struct completion {
    uint32_t next_get = 0;
    bool fence = false;      // flag_fence: fence_value goes to fence_done
    bool interrupt = false;  // flag_interrupt
    uint64_t fence_value = 0;
    cb_status status = CB_OK;
    cb_status detail = CB_OK;  // reg::error_detail of a failure
    std::string text;          // reg::error_text of a failure
};

class engine_state {
public:
    explicit engine_state(modeled_clock& clock);

    // ---- registers (MMIO side) ----
    uint32_t status() const;
    uint32_t pmc_enable() const;
    void set_pmc_enable(uint32_t value);
    uint64_t ring_base() const;
    void set_ring_base(uint64_t iova);  // ignored while the ring is on
    uint32_t ring_entries() const;
    void set_ring_entries(uint32_t entries);  // ignored while the ring is on
    uint32_t ring_control() const;
    void set_ring_control(uint32_t value);  // enabling checks base and size, starts at index 0
    uint32_t put() const;
    void doorbell(uint32_t put);  // out of range: refused as a ring error
    uint32_t get() const;
    // Hands `report` the commands between GET and PUT (queued, not completed) under the state's
    // lock, so a doorbell and a completion racing to report it cannot leave a stale count.
    void report_queued(const std::function<void(uint32_t)>& report) const;
    uint64_t fence_address() const;
    void set_fence_address(uint64_t iova);
    uint64_t fence_done() const;
    uint32_t intr_status() const;
    void clear_intr_status(uint32_t bits);  // write-1-to-clear; clearing intr_error clears status_error
    uint32_t intr_enable() const;
    void set_intr_enable(uint32_t bits);
    cb_status error_code() const;
    uint64_t error_fence() const;
    cb_status error_detail() const;
    // Four bytes of the last failure's text at `offset` (reg::error_text), little-endian.
    uint32_t error_text_word(uint32_t offset) const;
    // Bus master enable of the command register: without it the device must not DMA.
    void set_bus_master(bool enabled);

    // reset_soft: ring off, GET/PUT/fence_done/interrupts/errors cleared; configuration kept.
    void soft_reset();
    // reset_hard: soft, and every register back to its power-on value.
    void hard_reset();

    // ---- command processor side ----
    // Blocks until there is work, an interrupt to send, or stop(). False when stopping. On
    // return `send_msi` says whether to raise MSI vector 0 first.
    bool wait_for_work(ring_work& work, bool& send_msi);
    // Publishes one finished command unless a reset overtook it; true when MSI vector 0 must be
    // raised. False in `keep_going` when the processor should stop taking commands of `work`.
    bool complete(const ring_work& work, const completion& done, bool& keep_going);
    // A command ran to its end; the next to take is `next_get`. Called before its fence is
    // written: when nothing else is queued the modeled clock follows the wall clock again from
    // here, so a host that sees the fence and then sleeps sees the sleep on PTIMER. Returns the
    // fence address the command's fence goes to (0: none), read under the same lock.
    uint64_t retired(const ring_work& work, uint32_t next_get);
    // A ring fetch failed: record the error, turn the ring off. True when an MSI is due.
    bool fetch_failed(const ring_work& work, cb_status status);
    // The processor finished its stretch (status_busy may clear).
    void idle();
    // Blocks until the processor is out of its stretch: after a reset it stops at its next abort
    // check, and what that stretch touched (VRAM, host buffers) may then be released.
    void wait_until_idle();
    // True while work taken at `generation` is still wanted (no reset, no stop since).
    bool current(uint64_t generation) const noexcept;

    // Kernel time of this channel (the kernel_time registers): the processor adds each kernel's.
    void add_kernel_time(uint64_t ns) noexcept { kernel_ns_.fetch_add(ns, std::memory_order_relaxed); }
    uint64_t kernel_time() const noexcept { return kernel_ns_.load(std::memory_order_relaxed); }
    // Progress of this channel's work (the progress registers): the processor adds one for each
    // command it retires, the compute engine one for each kernel block it reaches.
    void note_progress() noexcept { progress_.fetch_add(1, std::memory_order_relaxed); }
    uint64_t progress() const noexcept { return progress_.load(std::memory_order_relaxed); }
    // The kernel command now running (the kernel_running register): when it started on the
    // host's steady clock, 0 while none runs.
    void kernel_started(uint64_t steady_ns) noexcept { kernel_since_ns_.store(steady_ns, std::memory_order_relaxed); }
    void kernel_ended() noexcept { kernel_since_ns_.store(0, std::memory_order_relaxed); }
    uint64_t kernel_running_since_ns() const noexcept { return kernel_since_ns_.load(std::memory_order_relaxed); }

    // Lifecycle of the processor thread.
    void start();
    void stop();

private:
    // How long the processor looks for new work before it sleeps (see wait_for_work).
    static constexpr std::chrono::microseconds processor_spin{50};

    // Counts the changes that may give the processor work, then wakes it if it sleeps.
    void signal();
    void spin_while_unchanged(uint64_t seen) const;
    static void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    bool runnable_locked() const;
    bool record_error_locked(cb_status status, uint64_t fence, cb_status detail = CB_OK);
    void clear_engines_locked();
    // The clock is busy while work is runnable or running (not after stop()).
    void update_clock_locked();

    modeled_clock& clock_;

    mutable std::mutex m_;
    std::condition_variable wake_;
    std::condition_variable idled_;
    std::atomic<uint64_t> changes_{0};  // bumped by signal()
    std::atomic<uint64_t> kernel_ns_{0};
    std::atomic<uint64_t> progress_{0};
    std::atomic<uint64_t> kernel_since_ns_{0};
    std::atomic<uint64_t> generation_{0};
    std::atomic<bool> stop_{false};

    uint32_t pmc_enable_ = 1;
    bool bus_master_ = true;
    uint64_t ring_base_ = 0;
    uint32_t ring_entries_ = 0;
    bool ring_on_ = false;
    uint32_t put_ = 0, get_ = 0;
    bool running_ = false;
    uint64_t fence_address_ = 0;
    uint64_t fence_done_ = 0;
    uint32_t intr_status_ = 0, intr_enable_ = 0;
    bool error_ = false;
    cb_status error_code_ = CB_OK;
    uint64_t error_fence_ = 0;
    cb_status error_detail_ = CB_OK;
    std::string error_text_;
    bool msi_pending_ = false;  // an event raised from the MMIO side, sent by the processor
};

}  // namespace cudabridge::nv

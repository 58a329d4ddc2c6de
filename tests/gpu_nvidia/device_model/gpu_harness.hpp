// Drives a device_model through its C table as a userspace driver would: 32-bit register
// access, a command ring and fence word in the fake link's host buffer, submission, and waiting
// for fences (with a generous deadline so a broken model fails instead of hanging the test).
#pragma once

#include "fake_link.hpp"

#include "sim/device_model/device_model.hpp"
#include "common/hw/commands.hpp"
#include "common/hw/registers.hpp"
#include "common/profiles/profile.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

namespace cudabridge::test {

namespace hw = nv::hw;

// Host buffer layout (IOVA = offset; nothing at 0 so a zero IOVA is never valid).
inline constexpr uint64_t fence_iova = 0x100;
inline constexpr uint64_t timestamp_iova = 0x200;
inline constexpr uint64_t ring_iova = 0x1000;
inline constexpr uint32_t ring_entries = 256;
inline constexpr uint64_t block_iova = 0x10000;  // launch blocks, 4 KiB apart
inline constexpr uint64_t data_iova = 1u << 20;  // data from here on
inline constexpr size_t host_bytes = 48u << 20;

inline const nv::gpu_profile& profile(const char* key) {
    const nv::gpu_profile* p = nv::find_profile_by_key(key);
    if (!p) throw std::runtime_error(std::string("no profile ") + key);
    return *p;
}

class gpu_harness {
public:
    explicit gpu_harness(const char* key = "rtx-4060-ti", nv::device_model_options options = {})
        : link(host_bytes), host(nullptr) {
        if (options.compute_threads == 0) options.compute_threads = 2;
        model = std::make_unique<nv::device_model>(host, profile(key), std::move(options));
        table = nv::device_model::table();
    }
    ~gpu_harness() { detach(); }

    void attach() { ASSERT_EQ(table->attach(model.get(), &link.ops()), CB_OK); }
    void detach() {
        if (model) table->detach(model.get());
    }

    uint32_t rd(uint32_t offset) {
        uint32_t v = 0xDEADBEEF;
        EXPECT_EQ(table->mmio_read(model.get(), 0, offset, &v, 4), CB_OK);
        return v;
    }
    void wr(uint32_t offset, uint32_t value) { EXPECT_EQ(table->mmio_write(model.get(), 0, offset, &value, 4), CB_OK); }
    void wr64(uint32_t lo_offset, uint64_t value) {
        wr(lo_offset, static_cast<uint32_t>(value));
        wr(lo_offset + 4, static_cast<uint32_t>(value >> 32));
    }
    uint64_t fence_done() {
        const uint32_t lo = rd(hw::reg::fence_done_lo);
        return (uint64_t{rd(hw::reg::fence_done_hi)} << 32) | lo;
    }
    uint64_t error_fence() {
        const uint32_t lo = rd(hw::reg::error_fence_lo);
        return (uint64_t{rd(hw::reg::error_fence_hi)} << 32) | lo;
    }
    cb_status error_code() { return static_cast<cb_status>(rd(hw::reg::error_code)); }

    // Attach, ring in host memory, fence word, both interrupts enabled.
    void bring_up() {
        attach();
        wr64(hw::reg::ring_base_lo, ring_iova);
        wr(hw::reg::ring_entries, ring_entries);
        wr64(hw::reg::fence_addr_lo, fence_iova);
        wr(hw::reg::intr_enable, hw::intr_fence | hw::intr_error);
        wr(hw::reg::ring_control, 1);
        ASSERT_EQ(rd(hw::reg::ring_control), 1u);
        put_ = 0;
    }

    // After a hard reset: the same ring set up again (already attached).
    void bring_up_again() {
        wr64(hw::reg::ring_base_lo, ring_iova);
        wr(hw::reg::ring_entries, ring_entries);
        wr64(hw::reg::fence_addr_lo, fence_iova);
        wr(hw::reg::intr_enable, hw::intr_fence | hw::intr_error);
        restart_ring();
    }

    // Writes the command at PUT and rings the doorbell; returns its fence value.
    uint64_t submit(const hw::command& c, uint32_t flags = hw::flag_fence | hw::flag_interrupt) {
        const uint64_t fence = queue(c, flags);
        doorbell();
        return fence;
    }
    // Queues without ringing (several commands, one doorbell).
    uint64_t queue(hw::command c, uint32_t flags = hw::flag_fence) {
        c.flags = flags;
        c.fence = ++last_fence_;
        std::memcpy(link.at(ring_iova + uint64_t{put_} * sizeof c), &c, sizeof c);
        put_ = (put_ + 1) % ring_entries;
        return c.fence;
    }
    void doorbell() { wr(hw::reg::ring_put, put_); }
    // After a reset the device starts the ring at index 0 again.
    void restart_ring() {
        wr(hw::reg::ring_control, 1);
        put_ = 0;
    }

    // True once fence_done reaches `fence` (false after a 20 s deadline: a hang, not a timing).
    bool wait(uint64_t fence) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (fence_done() < fence) {
            if (std::chrono::steady_clock::now() > deadline) return false;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        return true;
    }
    bool wait_idle() {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (rd(hw::reg::status) & hw::status_busy) {
            if (std::chrono::steady_clock::now() > deadline) return false;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        return true;
    }
    uint64_t fence_word() {
        uint64_t v = 0;
        std::memcpy(&v, link.at(fence_iova), sizeof v);
        return v;
    }

    static hw::command make(hw::opcode op, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0) {
        hw::command x{};
        x.op = op;
        x.a = a;
        x.b = b;
        x.c = c;
        return x;
    }

    // Host <-> device helpers that go through the ring and wait.
    void h2d(uint64_t device, const void* src, size_t bytes) {
        std::memcpy(link.at(data_iova), src, bytes);
        ASSERT_TRUE(wait(submit(make(hw::opcode::copy_h2d, data_iova, device, bytes))));
    }
    void d2h(void* dst, uint64_t device, size_t bytes) {
        const uint64_t at = data_iova + (16u << 20);
        ASSERT_TRUE(wait(submit(make(hw::opcode::copy_d2h, device, at, bytes))));
        std::memcpy(dst, link.at(at), bytes);
    }

    fake_link link;
    sdk::host host;
    std::unique_ptr<nv::device_model> model;
    const cb_endpoint_model_table* table = nullptr;

private:
    uint32_t put_ = 0;
    uint64_t last_fence_ = 0;
};

}  // namespace cudabridge::test

#include "sim/device_model/bar0_registers.hpp"

#include "sim/device_model/telemetry_registers.hpp"
#include "common/hw/registers.hpp"

#include <algorithm>
#include <chrono>

namespace cudabridge::nv {
namespace {

constexpr uint64_t bar1_window_alignment = 64u << 10;

uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
uint64_t pair(uint32_t high, uint32_t low) { return (uint64_t{high} << 32) | low; }

// Milliseconds since `since_ns` on the steady clock, saturating at the register's width; 0 for 0.
uint32_t running_ms(uint64_t since_ns) {
    if (since_ns == 0) return 0;
    const auto now = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
    const uint64_t ms = now > since_ns ? (now - since_ns) / 1000000 : 0;
    return static_cast<uint32_t>(std::min<uint64_t>(ms, UINT32_MAX));
}

}  // namespace

bar0_registers::bar0_registers(const board_identity& board, const gpu_profile& profile, engine_state& engines,
                               board_telemetry& telemetry, modeled_clock& clock, unsigned compute_threads)
    : board_(board),
      profile_(profile),
      engines_(engines),
      telemetry_(telemetry),
      clock_(clock),
      compute_threads_(compute_threads),
      shared_(telemetry) {}

void bar0_registers::hard_reset() {
    ring_base_lo_ = fence_addr_lo_ = bar1_window_lo_ = 0;
    bar1_window_ = 0;
    settings_error_ = CB_OK;
}

uint32_t bar0_registers::read(uint32_t offset) {
    uint32_t value = 0;
    if (read_identification(offset, value) || read_block(offset, value) || shared_.read(offset, value)) return value;
    if (offset == hw::reg::settings_error) return static_cast<uint32_t>(settings_error_);
    if (read_board_register(telemetry_, profile_, offset, value)) return value;
    return 0;
}

bool bar0_registers::read_identification(uint32_t offset, uint32_t& value) {
    switch (offset) {
    case hw::pmc_boot_0:
        value = hw::encode_boot_0(board_.chip);
        return true;
    case hw::pmc_boot_42:
        value = hw::encode_boot_42(board_.chip);
        return true;
    case hw::pmc_enable:
        value = engines_.pmc_enable();
        return true;
    case hw::ptimer_time_0: {
        const uint64_t now = clock_.now();
        ptimer_high_latch_ = hi(now);
        value = lo(now);
        return true;
    }
    case hw::ptimer_time_1:
        value = ptimer_high_latch_;
        return true;
    default:
        return false;
    }
}

bool bar0_registers::read_block(uint32_t offset, uint32_t& value) {
    namespace r = hw::reg;
    if (offset >= r::error_text && offset < r::error_text + r::error_text_bytes) {
        value = engines_.error_text_word(offset - r::error_text);
        return true;
    }
    switch (offset) {
    case r::magic:
        value = hw::cb_magic_value;
        return true;
    case r::version:
        value = hw::cb_interface_version;
        return true;
    case r::reset:
        value = 0;
        return true;
    case r::status:
        value = engines_.status();
        return true;
    case r::ring_base_lo:
        value = lo(engines_.ring_base());
        return true;
    case r::ring_base_hi:
        value = hi(engines_.ring_base());
        return true;
    case r::ring_entries:
        value = engines_.ring_entries();
        return true;
    case r::ring_control:
        value = engines_.ring_control();
        return true;
    case r::ring_put:
        value = engines_.put();
        return true;
    case r::ring_get:
        value = engines_.get();
        return true;
    case r::fence_addr_lo:
        value = lo(engines_.fence_address());
        return true;
    case r::fence_addr_hi:
        value = hi(engines_.fence_address());
        return true;
    case r::fence_done_lo: {
        const uint64_t done = engines_.fence_done();
        fence_done_high_latch_ = hi(done);
        value = lo(done);
        return true;
    }
    case r::fence_done_hi:
        value = fence_done_high_latch_;
        return true;
    case r::kernel_time_lo: {
        const uint64_t ns = engines_.kernel_time();
        kernel_time_high_latch_ = hi(ns);
        value = lo(ns);
        return true;
    }
    case r::kernel_time_hi:
        value = kernel_time_high_latch_;
        return true;
    case r::progress_lo: {
        const uint64_t count = engines_.progress();
        progress_high_latch_ = hi(count);
        value = lo(count);
        return true;
    }
    case r::progress_hi:
        value = progress_high_latch_;
        return true;
    case r::kernel_running_ms:
        value = running_ms(engines_.kernel_running_since_ns());
        return true;
    case r::intr_status:
        value = engines_.intr_status();
        return true;
    case r::intr_enable:
        value = engines_.intr_enable();
        return true;
    case r::error_code:
        value = static_cast<uint32_t>(engines_.error_code());
        return true;
    case r::error_fence_lo:
        value = lo(engines_.error_fence());
        return true;
    case r::error_fence_hi:
        value = hi(engines_.error_fence());
        return true;
    case r::error_detail:
        value = static_cast<uint32_t>(engines_.error_detail());
        return true;
    case r::vram_size_lo:
        value = lo(board_.vram_bytes);
        return true;
    case r::vram_size_hi:
        value = hi(board_.vram_bytes);
        return true;
    case r::vram_base_lo:
        value = lo(hw::vram_base);
        return true;
    case r::vram_base_hi:
        value = hi(hw::vram_base);
        return true;
    case r::compute_threads:
        value = compute_threads_;
        return true;
    case r::bar1_window_lo:
        value = lo(bar1_window_.load());
        return true;
    case r::bar1_window_hi:
        value = hi(bar1_window_.load());
        return true;
    default:
        return false;
    }
}

reset_request bar0_registers::write(uint32_t offset, uint32_t value) {
    if (offset == hw::pmc_enable) {
        engines_.set_pmc_enable(value);
        return reset_request::none;
    }
    if (cb_status outcome = CB_OK; write_board_register(telemetry_, offset, value, outcome)) {
        settings_error_ = outcome;
        return reset_request::none;
    }
    if (shared_.write(offset, value)) return reset_request::none;
    return write_block(offset, value);
}

reset_request bar0_registers::write_block(uint32_t offset, uint32_t value) {
    namespace r = hw::reg;
    switch (offset) {
    case r::reset:
        if (value == hw::reset_soft) return reset_request::soft;
        if (value == hw::reset_hard) return reset_request::hard;
        break;
    case r::ring_base_lo:
        ring_base_lo_ = value;
        break;
    case r::ring_base_hi:
        engines_.set_ring_base(pair(value, ring_base_lo_));
        break;
    case r::ring_entries:
        engines_.set_ring_entries(value);
        break;
    case r::ring_control:
        engines_.set_ring_control(value);
        break;
    case r::ring_put:
        engines_.doorbell(value);
        engines_.report_queued([this](uint32_t n) { telemetry_.set_queued(n); });
        break;
    case r::fence_addr_lo:
        fence_addr_lo_ = value;
        break;
    case r::fence_addr_hi:
        engines_.set_fence_address(pair(value, fence_addr_lo_));
        break;
    case r::intr_status:
        engines_.clear_intr_status(value);
        break;
    case r::intr_enable:
        engines_.set_intr_enable(value);
        break;
    case r::bar1_window_lo:
        bar1_window_lo_ = value;
        break;
    case r::bar1_window_hi:
        bar1_window_ = pair(value, bar1_window_lo_) & ~(bar1_window_alignment - 1);
        break;
    default:
        break;  // read-only or unknown: ignored
    }
    return reset_request::none;
}

}  // namespace cudabridge::nv

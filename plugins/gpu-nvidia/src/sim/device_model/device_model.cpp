#include "sim/device_model/device_model.hpp"

#include "sim/device_model/apertures.hpp"
#include "common/hw/registers.hpp"

#include <cstddef>
#include <cstring>

namespace cudabridge::nv {
namespace {

constexpr const char* log_category = "GPU";

}  // namespace

device_model::device_model(const sdk::host& host, const gpu_profile& profile, device_model_options options)
    : endpoint_model(host),
      options_(std::move(options)),
      profile_(profile),
      board_(identify(profile_, options_.link_gen, options_.link_width)),
      config_(board_),
      vram_(profile_.vram_bytes),
      instance_memory_(hw::bar3_size),
      engines_(clock_),
      telemetry_(profile_, options_.live_state_file),
      compute_(options_.compute_threads, options_.modules),
      registers_(board_, profile_, engines_, telemetry_, clock_, compute_.threads()),
      processor_(engines_, vram_, compute_, telemetry_, clock_, roofline_of(profile_), host_) {
    engines_.set_bus_master(config_.bus_master_enabled());
}

device_model::~device_model() { processor_.stop(); }

// ---- config space -------------------------------------------------------------------------------

cb_status device_model::config_read(uint32_t offset, void* data, uint32_t size) {
    std::lock_guard lock(mmio_mutex_);
    return config_.read(offset, data, size);
}

cb_status device_model::config_write(uint32_t offset, const void* data, uint32_t size) {
    std::lock_guard lock(mmio_mutex_);
    config_effect effect = config_effect::none;
    const cb_status st = config_.write(offset, data, size, effect);
    if (st != CB_OK) return st;
    engines_.set_bus_master(config_.bus_master_enabled());
    if (effect == config_effect::function_level_reset) hard_reset();
    return CB_OK;
}

cb_status device_model::bar_info(uint32_t bar, cb_bar_info& out) {
    std::lock_guard lock(mmio_mutex_);
    return config_.bar_info(bar, out);
}

// ---- MMIO -----------------------------------------------------------------------------------------

cb_status device_model::mmio_read(uint32_t bar, uint64_t offset, void* data, uint32_t size) {
    std::lock_guard lock(mmio_mutex_);
    if (data == nullptr || !valid_access_size(size)) return CB_ERR_INVALID_ARGUMENT;
    if (bar != 0 && bar != 1 && bar != 3) return CB_ERR_INVALID_ARGUMENT;
    // Memory decoding off: the function does not answer and the CPU reads all ones.
    if (!config_.memory_space_enabled()) {
        std::memset(data, 0xFF, size);
        return CB_OK;
    }
    switch (bar) {
    case 0:
        return bar0_read(offset, data, size);
    case 1:
        return bar1_read(vram_, board_.bar1_size, registers_.bar1_window(), offset, data, size);
    default:
        return bar3_read(instance_memory_, offset, data, size);
    }
}

cb_status device_model::mmio_write(uint32_t bar, uint64_t offset, const void* data, uint32_t size) {
    std::lock_guard lock(mmio_mutex_);
    if (data == nullptr || !valid_access_size(size)) return CB_ERR_INVALID_ARGUMENT;
    if (bar != 0 && bar != 1 && bar != 3) return CB_ERR_INVALID_ARGUMENT;
    if (!config_.memory_space_enabled()) return CB_OK;  // dropped, as a posted write would be
    switch (bar) {
    case 0:
        return bar0_write(offset, data, size);
    case 1:
        return bar1_write(vram_, board_.bar1_size, registers_.bar1_window(), offset, data, size);
    default:
        return bar3_write(instance_memory_, offset, data, size);
    }
}

cb_status device_model::bar_map(uint32_t bar, uint64_t offset, uint64_t size, void*& host) {
    std::lock_guard lock(mmio_mutex_);
    if (bar != 1) return CB_ERR_UNSUPPORTED;  // registers and instance memory are not for the host
    uint8_t* at = bar1_map(vram_, board_.bar1_size, registers_.bar1_window(), offset, size);
    if (!at) return CB_ERR_INVALID_ARGUMENT;
    host = at;
    return CB_OK;
}

// Registers are 32 bits: 8-byte and block accesses are dword accesses in ascending order (LO
// before HI); 1- and 2-byte reads take part of a dword; narrower writes are refused.
cb_status device_model::bar0_read(uint64_t offset, void* data, uint32_t size) {
    if (offset % std::min<uint32_t>(size, 4) != 0 || offset > hw::bar0_size || size > hw::bar0_size - offset)
        return CB_ERR_INVALID_ARGUMENT;
    auto* out = static_cast<uint8_t*>(data);
    if (size < 4) {
        const uint32_t dword = registers_.read(static_cast<uint32_t>(offset & ~uint64_t{3}));
        std::memcpy(out, reinterpret_cast<const uint8_t*>(&dword) + (offset & 3), size);
        return CB_OK;
    }
    for (uint32_t i = 0; i < size; i += 4) {
        const uint32_t dword = registers_.read(static_cast<uint32_t>(offset + i));
        std::memcpy(out + i, &dword, 4);
    }
    return CB_OK;
}

cb_status device_model::bar0_write(uint64_t offset, const void* data, uint32_t size) {
    if (size < 4 || offset % 4 != 0 || offset > hw::bar0_size || size > hw::bar0_size - offset)
        return CB_ERR_INVALID_ARGUMENT;
    const auto* in = static_cast<const uint8_t*>(data);
    for (uint32_t i = 0; i < size; i += 4) {
        uint32_t dword = 0;
        std::memcpy(&dword, in + i, 4);
        carry_out(registers_.write(static_cast<uint32_t>(offset + i), dword));
    }
    return CB_OK;
}

// ---- reset ----------------------------------------------------------------------------------------

void device_model::carry_out(reset_request request) {
    if (request == reset_request::soft) soft_reset();
    if (request == reset_request::hard) hard_reset();
}

void device_model::soft_reset() {
    engines_.soft_reset();
    telemetry_.set_queued(0);  // the ring was emptied with the engines
    host_.log(CB_LOG_INFO, log_category, "simulated GPU " + options_.device_id + ": soft reset (engines)");
}

// Config space is kept: the host saves and restores it around a reset, as Linux and
// PCIDriverKit do, and the simulated fabric has no enumeration to redo it.
void device_model::hard_reset() {
    engines_.hard_reset();
    engines_.wait_until_idle();  // the kernel or copy in flight stops before its VRAM goes
    registers_.hard_reset();
    telemetry_.reset_settings();
    telemetry_.count_hard_reset();
    telemetry_.set_queued(0);
    telemetry_.release_memory(UINT64_MAX);  // every allocation went with the VRAM
    vram_.release();
    instance_memory_.release();
    host_.log(CB_LOG_INFO, log_category, "simulated GPU " + options_.device_id + ": hard reset (VRAM released)");
}

cb_status device_model::reset(cb_reset_kind kind) {
    std::lock_guard lock(mmio_mutex_);
    switch (kind) {
    case CB_RESET_FUNCTION:
    case CB_RESET_HOT:
    case CB_RESET_HARD:
        hard_reset();
        return CB_OK;
    case CB_RESET_SOFT:
        soft_reset();
        return CB_OK;
    case CB_RESET_LINK_RETRAIN:
        return CB_OK;
    default:
        return CB_ERR_INVALID_ARGUMENT;
    }
}

// ---- link -----------------------------------------------------------------------------------------

cb_status device_model::attach(const cb_endpoint_host_ops& ops) {
    const bool complete =
        ops.struct_size >= CB_ENDPOINT_HOST_OPS_SIZE_1_0 && ops.dma_read && ops.dma_write && ops.raise_interrupt;
    if (!complete) return CB_ERR_INVALID_ARGUMENT;
    return processor_.start(ops);
}

void device_model::detach() { processor_.stop(); }

void device_model::simulate_elapsed(double seconds, double activity) { telemetry_.simulate_elapsed(seconds, activity); }

}  // namespace cudabridge::nv

// userspace_device: telemetry, settings and their bounds, heartbeat — all read from and written
// to the registers of hw/registers.hpp.
#include "userspace/driver/userspace_device.hpp"

#include "userspace/driver/status_text.hpp"

#include "common/hw/registers.hpp"

#include <cmath>

namespace cudabridge::nv {

namespace {

constexpr uint8_t pcie_capability_id = 0x10;

// Current PCIe link speed (generation) and width from the PCI Express capability's Link Status
// register; zeros when the function has none.
void read_pcie_link(link_port& port, uint32_t& gen, uint32_t& width) {
    gen = width = 0;
    uint8_t pointer = 0;
    if (port.config_read(0x34, &pointer, 1) != CB_OK) return;
    for (int hops = 0; pointer >= 0x40 && pointer != 0xFF && hops < 48; ++hops) {
        uint8_t header[2] = {};
        if (port.config_read(pointer, header, 2) != CB_OK) return;
        if (header[0] == pcie_capability_id) {
            uint8_t status[2] = {};
            if (port.config_read(pointer + 0x12u, status, 2) != CB_OK) return;
            const uint32_t v = static_cast<uint32_t>(status[0] | (status[1] << 8));
            gen = v & 0xF;
            width = (v >> 4) & 0x3F;
            return;
        }
        pointer = header[1];
    }
}

struct setting_bounds {
    uint32_t min_power_mw = 0, max_power_mw = 0, default_power_mw = 0;
    uint32_t min_sm = 0, max_sm = 0, min_mem = 0, max_mem = 0;
    bool fan = false;
};

}  // namespace

cb_status userspace_device::heartbeat(uint64_t& out_counter, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (phase_ == phase::closed || phase_ == phase::created) {
        error = phase_ == phase::closed ? "the device is closed" : "the device is not probed (call probe first)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (loss_.lost()) return lost_status(error);
    // TIME_0 first: reading it latches TIME_1.
    if (cb_status st = regs_.read64(hw::ptimer_time_0, hw::ptimer_time_1, out_counter, error); st != CB_OK) {
        if (loss_.lost()) return lost_status(error);
        return st;
    }
    return CB_OK;
}

cb_status userspace_device::get_telemetry(cb_gpu_telemetry& out, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    uint32_t temp = 0, power = 0, fan = 0, sm = 0, mem = 0, throttle = 0, gpu_util = 0, mem_util = 0, pstate = 0,
             xids = 0, last_xid = 0, limit = 0;
    uint64_t now = 0;
    const struct {
        uint32_t reg;
        uint32_t* value;
        bool sane;  // all ones is impossible on a live device
    } reads[] = {
        {hw::reg::temp_mc, &temp, true},
        {hw::reg::power_mw, &power, true},
        {hw::reg::fan_percent, &fan, false},
        {hw::reg::sm_clock_mhz, &sm, true},
        {hw::reg::mem_clock_mhz, &mem, true},
        {hw::reg::throttle, &throttle, true},
        {hw::reg::gpu_util_permille, &gpu_util, true},
        {hw::reg::mem_util_permille, &mem_util, true},
        {hw::reg::pstate_current, &pstate, true},
        {hw::reg::xid_count, &xids, true},
        {hw::reg::last_xid, &last_xid, true},
        {hw::reg::power_limit_mw, &limit, true},
    };
    for (const auto& r : reads) {
        cb_status st = r.sane ? regs_.read_sane(r.reg, *r.value, error) : regs_.read(r.reg, *r.value, error);
        if (st != CB_OK) return loss_.lost() ? lost_status(error) : st;
    }
    if (cb_status st = regs_.read64(hw::ptimer_time_0, hw::ptimer_time_1, now, error); st != CB_OK)
        return loss_.lost() ? lost_status(error) : st;

    out = cb_gpu_telemetry{};
    out.struct_size = sizeof out;
    cb_link_status link{};
    out.is_simulated = port_.link_status(link) == CB_OK && link.is_simulated != 0 ? 1 : 0;
    out.time_ns = now;
    out.temperature_c = temp / 1000.0;
    out.power_w = power / 1000.0;
    out.power_limit_w = limit / 1000.0;
    out.fan_percent = fan == hw::no_fan ? -1.0 : static_cast<double>(fan);
    out.sm_clock_mhz = sm;
    out.memory_clock_mhz = mem;
    out.gpu_utilization = gpu_util / 10.0;
    out.memory_utilization = mem_util / 10.0;
    const vram_stats v = vram_->stats();
    out.memory_used = v.used;
    out.memory_total = v.total;
    if (device_memory_used(out.memory_used, error) != CB_OK) out.memory_used = v.used;
    out.performance_state = static_cast<int32_t>(pstate);
    out.throttle_reasons = throttle;
    read_pcie_link(port_, out.pcie_link_gen, out.pcie_link_width);
    out.xid_count = xids;
    out.last_xid = last_xid;
    return CB_OK;
}

cb_status userspace_device::get_settings(cb_gpu_settings& out, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    uint32_t power = 0, sm = 0, mem = 0, fan = 0, pstate = 0;
    for (auto [reg, value] : {std::pair{hw::reg::power_limit_mw, &power}, std::pair{hw::reg::locked_sm_clock_mhz, &sm},
                              std::pair{hw::reg::locked_mem_clock_mhz, &mem}, std::pair{hw::reg::fan_control, &fan},
                              std::pair{hw::reg::pstate_request, &pstate}}) {
        if (cb_status st = regs_.read(reg, *value, error); st != CB_OK) return loss_.lost() ? lost_status(error) : st;
    }
    if (power == 0xFFFFFFFFu && sm == 0xFFFFFFFFu && pstate == 0xFFFFFFFFu) {
        regs_.read_sane(hw::reg::status, pstate, error);  // all ones everywhere: is it gone?
        if (loss_.lost()) return lost_status(error);
    }
    out = cb_gpu_settings{};
    out.struct_size = sizeof out;
    out.fields = CB_SET_CLOCKS | CB_SET_POWER_LIMIT | CB_SET_FAN | CB_SET_PSTATE;
    out.sm_clock_mhz = sm;
    out.memory_clock_mhz = mem;
    out.power_limit_w = power / 1000.0;
    out.fan_percent = fan == hw::fan_auto ? -1 : static_cast<int32_t>(fan);
    out.performance_state = static_cast<int32_t>(pstate);
    return CB_OK;
}

cb_status userspace_device::get_setting_limits(cb_gpu_setting_limits& out, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    setting_bounds b;
    uint32_t fan = 0;
    for (auto [reg, value] :
         {std::pair{hw::reg::min_power_mw, &b.min_power_mw}, std::pair{hw::reg::max_power_mw, &b.max_power_mw},
          std::pair{hw::reg::default_power_mw, &b.default_power_mw}, std::pair{hw::reg::min_sm_clock, &b.min_sm},
          std::pair{hw::reg::max_sm_clock, &b.max_sm}, std::pair{hw::reg::min_mem_clock, &b.min_mem},
          std::pair{hw::reg::max_mem_clock, &b.max_mem}}) {
        if (cb_status st = regs_.read_sane(reg, *value, error); st != CB_OK)
            return loss_.lost() ? lost_status(error) : st;
    }
    if (cb_status st = regs_.read(hw::reg::fan_percent, fan, error); st != CB_OK)
        return loss_.lost() ? lost_status(error) : st;
    out = cb_gpu_setting_limits{};
    out.struct_size = sizeof out;
    out.min_sm_clock_mhz = b.min_sm;
    out.max_sm_clock_mhz = b.max_sm;
    out.min_memory_clock_mhz = b.min_mem;
    out.max_memory_clock_mhz = b.max_mem;
    out.min_power_w = b.min_power_mw / 1000.0;
    out.max_power_w = b.max_power_mw / 1000.0;
    out.default_power_w = b.default_power_mw / 1000.0;
    out.min_performance_state = 0;
    out.max_performance_state = 15;
    out.fan_control = fan != hw::no_fan ? 1 : 0;
    return CB_OK;
}

cb_status userspace_device::apply_settings(const cb_gpu_settings& settings, std::string& error) {
    cb_gpu_setting_limits limits{};
    if (cb_status st = get_setting_limits(limits, error); st != CB_OK) return st;
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;

    const uint32_t known = CB_SET_CLOCKS | CB_SET_POWER_LIMIT | CB_SET_FAN | CB_SET_PSTATE;
    const uint32_t f = settings.fields;
    if ((f & ~known) != 0) {
        error = "apply_settings: unknown field bits " + hex(f & ~known);
        return CB_ERR_INVALID_ARGUMENT;
    }
    auto out_of = [&](const std::string& what, double value, double lo, double hi) -> cb_status {
        error = "apply_settings: " + what + " " + std::to_string(value) + " is outside " + std::to_string(lo) + ".." +
                std::to_string(hi);
        return CB_ERR_INVALID_ARGUMENT;
    };
    // Every field is checked before anything is written, so a refusal changes nothing.
    if (f & CB_SET_CLOCKS) {
        if (settings.sm_clock_mhz != 0 &&
            (settings.sm_clock_mhz < limits.min_sm_clock_mhz || settings.sm_clock_mhz > limits.max_sm_clock_mhz))
            return out_of("sm_clock_mhz", settings.sm_clock_mhz, limits.min_sm_clock_mhz, limits.max_sm_clock_mhz);
        if (settings.memory_clock_mhz != 0 && (settings.memory_clock_mhz < limits.min_memory_clock_mhz ||
                                               settings.memory_clock_mhz > limits.max_memory_clock_mhz))
            return out_of("memory_clock_mhz", settings.memory_clock_mhz, limits.min_memory_clock_mhz,
                          limits.max_memory_clock_mhz);
    }
    const double power_mw = std::round(settings.power_limit_w * 1000.0);
    if ((f & CB_SET_POWER_LIMIT) &&
        !(power_mw >= std::round(limits.min_power_w * 1000.0) && power_mw <= std::round(limits.max_power_w * 1000.0)))
        return out_of("power_limit_w", settings.power_limit_w, limits.min_power_w, limits.max_power_w);
    if (f & CB_SET_FAN) {
        if (!limits.fan_control) {
            error = "apply_settings: this board has no fan to control (passively cooled)";
            return CB_ERR_UNSUPPORTED;
        }
        if (settings.fan_percent < -1 || settings.fan_percent > 100)
            return out_of("fan_percent (-1 = automatic)", settings.fan_percent, -1, 100);
    }
    if ((f & CB_SET_PSTATE) && (settings.performance_state < limits.min_performance_state ||
                                settings.performance_state > limits.max_performance_state))
        return out_of("performance_state", settings.performance_state, limits.min_performance_state,
                      limits.max_performance_state);

    // Each write is confirmed: the device refuses what it does not accept and says so.
    auto write = [&](uint32_t reg, uint32_t value, const char* what) -> cb_status {
        if (cb_status st = regs_.write(reg, value, error); st != CB_OK) return st;
        uint32_t verdict = 0;
        if (cb_status st = regs_.read(hw::reg::settings_error, verdict, error); st != CB_OK) return st;
        if (static_cast<cb_status>(verdict) != CB_OK) {
            error = std::string("apply_settings: the device refused ") + what + " = " + std::to_string(value) + ": " +
                    status_name(static_cast<cb_status>(verdict));
            return static_cast<cb_status>(verdict);
        }
        return CB_OK;
    };
    cb_status st = CB_OK;
    if (st == CB_OK && (f & CB_SET_CLOCKS))
        st = write(hw::reg::locked_sm_clock_mhz, settings.sm_clock_mhz, "sm_clock_mhz");
    if (st == CB_OK && (f & CB_SET_CLOCKS))
        st = write(hw::reg::locked_mem_clock_mhz, settings.memory_clock_mhz, "memory_clock_mhz");
    if (st == CB_OK && (f & CB_SET_POWER_LIMIT))
        st = write(hw::reg::power_limit_mw, static_cast<uint32_t>(power_mw), "power_limit_mw");
    if (st == CB_OK && (f & CB_SET_FAN))
        st =
            write(hw::reg::fan_control,
                  settings.fan_percent < 0 ? hw::fan_auto : static_cast<uint32_t>(settings.fan_percent), "fan_control");
    if (st == CB_OK && (f & CB_SET_PSTATE))
        st = write(hw::reg::pstate_request, static_cast<uint32_t>(settings.performance_state), "pstate_request");
    if (st != CB_OK && loss_.lost()) return lost_status(error);
    return st;
}

}  // namespace cudabridge::nv

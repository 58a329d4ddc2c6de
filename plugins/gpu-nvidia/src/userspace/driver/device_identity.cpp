#include "userspace/driver/device_identity.hpp"

#include "userspace/driver/status_text.hpp"

#include "common/hw/registers.hpp"

#include <cudabridge/cpp/text_out.hpp>

namespace cudabridge::nv {

namespace {

constexpr uint32_t all_ones = 0xFFFFFFFFu;
// BAR0 must reach the last register of our block.
constexpr uint64_t bar0_needed = hw::reg::max_operating_temp_mc + 4;

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

cb_status read_config(link_port& port, device_identity& out, std::string& error) {
    uint8_t cfg[0x30] = {};
    if (cb_status st = port.config_read(0, cfg, sizeof cfg); st != CB_OK) {
        error = "reading PCI config space failed: " + status_name(st);
        return st;
    }
    out.vendor_id = u16(cfg + 0x00);
    out.device_id = u16(cfg + 0x02);
    out.class_code = static_cast<uint32_t>(cfg[0x09] | (cfg[0x0A] << 8) | (cfg[0x0B] << 16));
    out.subsystem_vendor_id = u16(cfg + 0x2C);
    out.subsystem_id = u16(cfg + 0x2E);
    if (out.vendor_id == 0xFFFF) {
        error = "no function answers at this link: PCI config space reads all ones";
        return CB_ERR_NO_DEVICE;
    }
    if (out.vendor_id != hw::pci_vendor_nvidia) {
        error = "not an NVIDIA device: PCI vendor " + hex(out.vendor_id, 4) + " device " + hex(out.device_id, 4) +
                " (the NVIDIA driver drives vendor 0x10de only)";
        return CB_ERR_UNSUPPORTED;
    }
    return CB_OK;
}

cb_status check_bar0(link_port& port, std::string& error) {
    cb_bar_info bar{};
    if (cb_status st = port.bar_info(0, bar); st != CB_OK) {
        error = "reading BAR0's size failed: " + status_name(st);
        return st;
    }
    if (bar.size < bar0_needed) {
        error = "BAR0 is " + std::to_string(bar.size) + " bytes; the CudaBridge register block needs " +
                std::to_string(bar0_needed);
        return CB_ERR_UNSUPPORTED;
    }
    return CB_OK;
}

cb_status check_block(register_access& regs, device_identity& out, std::string& error) {
    uint32_t magic = 0;
    if (cb_status st = regs.read(hw::reg::magic, magic, error); st != CB_OK) return st;
    if (magic == all_ones) {
        error = "the device does not respond: BAR0 reads all ones";
        return CB_ERR_NO_DEVICE;
    }
    if (magic != hw::cb_magic_value) {
        error = "BAR0 at " + hex(hw::reg::magic, 8) + " reads " + hex(magic, 8) +
                " where the CudaBridge block's magic " + hex(hw::cb_magic_value, 8) +
                " (\"CBGP\") belongs: this GPU is not one the userspace driver can drive";
        return CB_ERR_UNSUPPORTED;
    }
    if (cb_status st = regs.read(hw::reg::version, out.interface_version, error); st != CB_OK) return st;
    if (out.interface_version != hw::cb_interface_version) {
        error = "the device speaks register interface version " + std::to_string(out.interface_version) +
                "; this driver speaks version " + std::to_string(hw::cb_interface_version);
        return CB_ERR_ABI_MISMATCH;
    }
    return CB_OK;
}

cb_status read_chip(register_access& regs, device_identity& out, std::string& error) {
    uint32_t boot_42 = 0;
    if (cb_status st = regs.read_sane(hw::pmc_boot_42, boot_42, error); st != CB_OK) return st;
    out.chip = hw::decode_boot_42(boot_42);
    out.chip_name = hw::chip_name(out.chip);
    out.architecture = hw::architecture_name(out.chip.architecture);
    if (out.architecture.empty()) {
        error = "NV_PMC_BOOT_42 reads " + hex(boot_42, 8) + ": architecture " + hex(out.chip.architecture, 2) +
                " is not one this driver knows";
        return CB_ERR_UNSUPPORTED;
    }
    return CB_OK;
}

cb_status read_memory(register_access& regs, device_identity& out, std::string& error) {
    if (cb_status st = regs.read64(hw::reg::vram_size_lo, hw::reg::vram_size_hi, out.vram_size, error); st != CB_OK)
        return st;
    if (cb_status st = regs.read64(hw::reg::vram_base_lo, hw::reg::vram_base_hi, out.vram_base, error); st != CB_OK)
        return st;
    constexpr uint64_t granule = 256;
    if (out.vram_size == 0 || out.vram_size % granule != 0 || out.vram_base == 0 || out.vram_base % granule != 0 ||
        out.vram_base + out.vram_size < out.vram_base) {
        error = "the device reports VRAM of " + std::to_string(out.vram_size) + " bytes at " + hex(out.vram_base) +
                ", which the driver cannot manage";
        return CB_ERR_UNSUPPORTED;
    }
    if (cb_status st = regs.read(hw::reg::max_sm_clock, out.max_sm_clock_mhz, error); st != CB_OK) return st;
    return regs.read(hw::reg::max_mem_clock, out.max_mem_clock_mhz, error);
}

}  // namespace

cb_status identify_device(link_port& port, register_access& regs, device_identity& out, std::string& error) {
    out = device_identity{};
    if (!port.valid()) {
        error = "no transport link to probe";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (cb_status st = read_config(port, out, error); st != CB_OK) return st;
    if (cb_status st = check_bar0(port, error); st != CB_OK) return st;
    if (cb_status st = check_block(regs, out, error); st != CB_OK) return st;
    if (cb_status st = read_chip(regs, out, error); st != CB_OK) return st;
    if (cb_status st = read_memory(regs, out, error); st != CB_OK) return st;
    cb_link_status link{};
    out.simulated = port.link_status(link) == CB_OK && link.is_simulated != 0;
    out.profile = find_profile_by_pci_id(out.device_id);
    return CB_OK;
}

cb_gpu_properties properties_of(const device_identity& id) {
    cb_gpu_properties p{};
    p.struct_size = sizeof p;
    p.is_simulated = id.simulated ? 1 : 0;
    const gpu_profile* prof = id.profile;
    sdk::copy_text(p.name, prof ? prof->name : "NVIDIA " + id.chip_name);
    sdk::copy_text(p.architecture, id.architecture);
    sdk::copy_text(p.backend, "userspace");
    p.pci_vendor_id = id.vendor_id;
    p.pci_device_id = id.device_id;
    p.pci_subsystem_id = (static_cast<uint32_t>(id.subsystem_id) << 16) | id.subsystem_vendor_id;
    p.total_memory = id.vram_size;
    p.clock_mhz = id.max_sm_clock_mhz != 0 ? id.max_sm_clock_mhz : (prof ? prof->max_clock_mhz : 0);
    p.memory_clock_mhz = id.max_mem_clock_mhz != 0 ? id.max_mem_clock_mhz : (prof ? prof->memory_clock_mhz : 0);
    if (prof) {
        p.compute_major = prof->compute_major;
        p.compute_minor = prof->compute_minor;
        p.sm_count = prof->sm_count;
        p.memory_bus_width = prof->memory_bus_width_bits;
        p.l2_cache_bytes = static_cast<uint32_t>(prof->l2_cache_bytes);
    }
    // The same on every architecture this driver knows (CUDA Programming Guide, compute
    // capabilities table): 32-thread warps, 1024 threads per block, 48 KiB static shared memory.
    p.warp_size = 32;
    p.max_threads_per_block = 1024;
    p.max_block_dim[0] = 1024;
    p.max_block_dim[1] = 1024;
    p.max_block_dim[2] = 64;
    p.max_grid_dim[0] = 2147483647u;
    p.max_grid_dim[1] = 65535;
    p.max_grid_dim[2] = 65535;
    p.shared_memory_per_block = 48 * 1024;
    return p;
}

}  // namespace cudabridge::nv

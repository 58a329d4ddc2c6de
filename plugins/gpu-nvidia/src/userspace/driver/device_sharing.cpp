// userspace_device: what this process shares with every other process using the same board.
// Device memory is one board's: each allocation is reserved with the device (hw::reg::mem_*),
// which refuses one that would overflow its VRAM counting other processes' allocations, and each
// free gives it back. The process table (hw::reg::proc_*) says who is attached, with what memory
// and queued work, as nvidia-smi's process list does.
#include "userspace/driver/userspace_device.hpp"

#include "common/hw/registers.hpp"

#include <algorithm>
#include <cstring>

namespace cudabridge::nv {

cb_status userspace_device::reserve_memory(uint64_t bytes, std::string& error) {
    std::lock_guard lock(sharing_mutex_);
    if (cb_status st = regs_.write64(hw::reg::mem_reserve_lo, hw::reg::mem_reserve_hi, bytes, error); st != CB_OK)
        return st;
    uint32_t outcome = 0;
    if (cb_status st = regs_.read(hw::reg::mem_status, outcome, error); st != CB_OK) return st;
    if (static_cast<cb_status>(outcome) == CB_OK) return CB_OK;
    uint64_t used = 0;
    regs_.read64(hw::reg::mem_used_lo, hw::reg::mem_used_hi, used, error);
    error = "mem_alloc: out of device memory: " + std::to_string(bytes) + " bytes asked, " + std::to_string(used) +
            " of " + std::to_string(vram_size_) + " in use by the processes on this device";
    return CB_ERR_OUT_OF_MEMORY;
}

void userspace_device::release_memory(uint64_t bytes) {
    std::lock_guard lock(sharing_mutex_);
    std::string ignored;  // a device that does not answer has released everything anyway
    regs_.write64(hw::reg::mem_release_lo, hw::reg::mem_release_hi, bytes, ignored);
}

cb_status userspace_device::device_memory_used(uint64_t& used, std::string& error) {
    std::lock_guard lock(sharing_mutex_);
    return regs_.read64(hw::reg::mem_used_lo, hw::reg::mem_used_hi, used, error);
}

cb_status userspace_device::read_process_row(uint32_t row, cb_gpu_process& out, std::string& error) {
    namespace r = hw::reg;
    out = cb_gpu_process{};
    out.struct_size = sizeof out;
    uint32_t pid = 0, words[hw::proc_name_words] = {};
    cb_status st = regs_.write(r::proc_select, row, error);
    if (st == CB_OK) st = regs_.read(r::proc_pid, pid, error);
    if (st == CB_OK) st = regs_.read(r::proc_flags, out.flags, error);
    if (st == CB_OK) st = regs_.read(r::proc_queued, out.queued, error);
    if (st == CB_OK) st = regs_.read64(r::proc_memory_lo, r::proc_memory_hi, out.memory_used, error);
    if (st == CB_OK) st = regs_.read64(r::proc_start_lo, r::proc_start_hi, out.start_unix_ns, error);
    for (uint32_t i = 0; st == CB_OK && i < hw::proc_name_words; ++i)
        st = regs_.read(r::proc_name_0 + 4 * i, words[i], error);
    if (st != CB_OK) return st;
    out.pid = static_cast<int32_t>(pid);
    out.flags = out.flags & hw::proc_computes ? CB_GPU_PROCESS_COMPUTE : 0;
    for (uint32_t i = 0; i < hw::proc_name_words * 4; ++i)
        out.name[i] = static_cast<char>((words[i / 4] >> (8 * (i % 4))) & 0xFF);
    out.name[std::min<size_t>(hw::proc_name_words * 4, sizeof out.name - 1)] = '\0';
    return CB_OK;
}

cb_status userspace_device::processes(std::vector<cb_gpu_process>& out, std::string& error) {
    std::shared_lock life(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    std::lock_guard lock(sharing_mutex_);
    uint32_t count = 0;
    if (cb_status st = regs_.read(hw::reg::proc_count, count, error); st != CB_OK)
        return loss_.lost() ? lost_status(error) : st;
    out.assign(count, cb_gpu_process{});
    for (uint32_t row = 0; row < count; ++row)
        if (cb_status st = read_process_row(row, out[row], error); st != CB_OK)
            return loss_.lost() ? lost_status(error) : st;
    return CB_OK;
}

}  // namespace cudabridge::nv

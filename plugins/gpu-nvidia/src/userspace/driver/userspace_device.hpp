// The userspace driver for one NVIDIA GPU of the simulated kind, driven register by register over
// any transport link (cb_transport_table): the path a macOS machine needs, run here against the
// device model. It speaks the contract of hw/registers.hpp and hw/commands.hpp:
//
//  - probe: PCI config space (vendor 0x10de), BAR0's CudaBridge block (magic, interface version),
//    NV_PMC_BOOT_42 (chip and architecture), the VRAM registers, and the profile matching the
//    PCI device id;
//  - init: a soft reset, PMC_ENABLE, the command ring in host memory (page-aligned, mapped
//    once), the fence word and the launch block arena (each mapped once), interrupts, ring
//    enable;
//  - every command carries a fence; one ring serves all streams (the device runs it in order), so
//    a stream is just the last fence it submitted;
//  - host copies map the caller's memory directly (no bounce buffer) chunk by chunk, at most two
//    chunks mapped and in flight (the next is mapped while the current runs), each unmapped when
//    its fence completes; chunks shrink so that two fit in what the IOMMU has left;
//  - host copies return once the host buffer is no longer needed (synchronous even on a
//    stream); device-to-device copies, memset and launches on a stream are asynchronous, and
//    synchronous on the null stream;
//  - pinned host memory (host_register, ABI 1.3) is mapped once for DMA (bidirectional) until
//    host_unregister; a host copy whose host range lies entirely inside one registration is one
//    command through that mapping, with no per-copy mapping, and on a stream it returns as soon
//    as it is queued (as CUDA's pinned copies: the caller leaves the memory alone until the
//    stream passes the copy); on the null stream it still waits. A copy only partly inside a
//    registration takes the mapped-per-chunk path. Registrations survive resets (the IOMMU
//    mapping is the host's, not the device's) and go with close(). PTX kernels reach every
//    registration at its own host address (ABI 1.9, zero-copy: each launch block lists them with
//    their IOVAs); managed memory (mem_alloc_managed) is page-aligned host memory registered so;
//  - stream_wait_event (ABI 1.3) queues nothing: the one ring runs in order, so work queued
//    after the call already starts after the event's earlier work;
//  - user modules on a simulated GPU, kept in the family's module_registry: host kernels
//    (CB_MODULE_HOST_KERNELS, ABI 1.3), C functions run by the compute engine once per block
//    (hw::opcode::host_kernel), and PTX (or a fatbin's PTX, or CUDA source through NVRTC) that
//    the PTX engine compiled at load (hw::opcode::ptx_kernel). A host kernel that returns a
//    failure fails its launch as a kernel fault: CB_ERR_INTERNAL at the stream's next
//    synchronize (or from the launch itself on the null stream), the kernel's name and returned
//    status in the message; a PTX kernel's illegal address fails it with CB_ERR_ILLEGAL_ADDRESS;
//  - a device that reads all ones, or a transport call reporting the device lost or the link
//    down, marks the device lost: every wait wakes, every later call answers CB_ERR_DEVICE_LOST
//    (close still works; a reset that brings the device back clears it).
//
// Errors: every method returns a cb_status; on failure `error` receives the message (the plugin
// forwards it with set_last_error); on success `error` is left as it was.
// Threading: every method may be called from any thread. probe, init, reset and close are
// exclusive (they wait for calls in progress); everything else runs concurrently.
// Lifetime: close() unregisters the interrupt handler, but a transport may still be running a
// call of it that it started before; keep the object alive until the link is closed (closing
// a sim_link joins the device's threads), then destroy it.
#pragma once

#include "userspace/driver/command_ring.hpp"
#include "userspace/driver/device_loss.hpp"
#include "userspace/driver/fence_tracker.hpp"
#include "userspace/driver/launch_arena.hpp"
#include "userspace/driver/link_port.hpp"
#include "userspace/driver/register_access.hpp"
#include "userspace/driver/shared_pages.hpp"
#include "userspace/driver/timestamp_slots.hpp"
#include "userspace/driver/userspace_options.hpp"

#include "common/profiles/profile.hpp"
#include "userspace/vram/vram_allocator.hpp"

#include <cudabridge/builtin_kernels.h>
#include <cudabridge/gpu.h>
#include <cudabridge/transport.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace cudabridge::nv {

struct userspace_stream;  // opaque handles, owned by the device until destroyed or closed
struct userspace_event;
struct userspace_module;
struct pinned_range;
struct ptx_launch;
class module_registry;

class userspace_device {
public:
    // Nothing is read from the device until probe(). `modules`: where user modules are
    // registered for the simulated GPU behind the link (null: no user modules).
    userspace_device(const cb_transport_table* transport, void* transport_instance, cb_link* link,
                     userspace_options options = {}, std::shared_ptr<module_registry> modules = nullptr);
    ~userspace_device();  // close()
    userspace_device(const userspace_device&) = delete;
    userspace_device& operator=(const userspace_device&) = delete;

    // ---- lifecycle ----------------------------------------------------------------------------
    // Identifies the device. CB_ERR_UNSUPPORTED: not an NVIDIA device, or no CudaBridge block in
    // BAR0; CB_ERR_NO_DEVICE: nothing answers; CB_ERR_ABI_MISMATCH: another interface version.
    cb_status probe(std::string& error);
    // Probes when needed, then brings the engines and the ring up. Idempotent once ready.
    cb_status init(std::string& error);
    // CB_RESET_SOFT / CB_RESET_HARD through reg::reset; CB_RESET_FUNCTION / CB_RESET_HOT through
    // the link (FLR); CB_RESET_LINK_RETRAIN only retrains. Work still queued is abandoned (its
    // stream's next synchronize reports it, and a wait on it ends at once); hard and link resets
    // release all VRAM allocations. A reset after which the device answers again clears a loss.
    cb_status reset(cb_reset_kind kind, std::string& error);
    // Cancels work still queued (as CUDA's teardown at exit: a kernel that never ends does not
    // keep the program alive), disables the ring, unmaps everything. Further calls answer
    // CB_ERR_INVALID_ARGUMENT. Idempotent; works on a lost device.
    cb_status close(std::string& error);

    cb_status get_properties(cb_gpu_properties& out, std::string& error) const;
    const gpu_profile* profile() const;  // matched by PCI device id at probe; may be null
    bool lost() const noexcept { return loss_.lost(); }

    // ---- memory -------------------------------------------------------------------------------
    cb_status mem_alloc(uint64_t size, uint64_t& out_ptr, std::string& error);
    cb_status mem_free(uint64_t ptr, std::string& error);
    cb_status mem_info(uint64_t& out_free, uint64_t& out_total, std::string& error);
    // The host address of [ptr, ptr + size) of one allocation through the BAR1 aperture
    // (cb_gpu_table.mem_host_address). The driver never moves the BAR1 window: BAR1 offset 0 is
    // VRAM byte 0.
    cb_status mem_host_address(uint64_t ptr, uint64_t size, void*& host, std::string& error);
    vram_stats memory_stats() const;
    // Device memory shared with other processes (device_ipc.cpp, shared_pages.hpp): a handle
    // naming the allocation that holds `ptr` (work queued before is finished first), and the
    // address at which another process's handle maps here. mem_free undoes either.
    cb_status mem_share(uint64_t ptr, void* handle, std::string& error);
    cb_status mem_open_shared(const void* handle, uint64_t& out_ptr, uint64_t& out_bytes, std::string& error);
    // The processes attached to the board (device_sharing.cpp), this one included.
    cb_status processes(std::vector<cb_gpu_process>& out, std::string& error);
    // How many host buffers were mapped for launch blocks: one arena per init, whatever the
    // number of launches.
    uint64_t launch_blocks_mapped() const noexcept { return launch_blocks_mapped_.load(); }

    // Device ranges must lie inside one live allocation. Size 0 does nothing.
    cb_status memcpy_h2d(uint64_t dst, const void* src, size_t size, userspace_stream* stream, std::string& error);
    cb_status memcpy_d2h(void* dst, uint64_t src, size_t size, userspace_stream* stream, std::string& error);
    cb_status memcpy_d2d(uint64_t dst, uint64_t src, size_t size, userspace_stream* stream, std::string& error);
    cb_status memset8(uint64_t dst, uint8_t value, size_t size, userspace_stream* stream, std::string& error);

    // ---- pinned host memory (ABI 1.3) ---------------------------------------------------------
    // Maps [ptr, ptr + size) for DMA until host_unregister. CB_ERR_INVALID_ARGUMENT: NULL, size 0
    // or overlapping a registration; CB_ERR_DMA_LIMIT: the IOMMU cannot hold it (the message
    // gives its budget).
    cb_status host_register(void* ptr, size_t size, std::string& error);
    cb_status register_host_range(void* ptr, size_t size, bool must_map, std::string& error);
    // Waits until no queued copy uses the range, then unmaps it. CB_ERR_INVALID_ARGUMENT: `ptr`
    // does not start a registration. Past timeout_ms the range is unmapped anyway (the device
    // then faults instead of touching the memory) and CB_ERR_TIMEOUT is returned.
    cb_status host_unregister(void* ptr, std::string& error);

    // ---- managed and zero-copy memory (ABI 1.9; simulated GPUs, whose PTX kernels reach it) ---
    // Page-aligned host memory registered for the device (CB_ERR_UNSUPPORTED where kernels cannot
    // reach host memory); kernels reach it at its own address, so out_ptr is the host pointer
    // too. It takes no VRAM: on a simulated GPU managed memory is host memory the kernels reach
    // over the link (a real GPU's driver migrates its pages instead). mem_free releases it.
    cb_status mem_alloc_managed(uint64_t size, uint64_t& out_ptr, std::string& error);
    // Where kernels reach registered host memory: at the host pointer itself (unified
    // addressing). CB_ERR_NOT_FOUND when no registration holds `ptr`.
    cb_status host_device_address(const void* ptr, uint64_t& out, std::string& error);
    // The KERNEL_TIME registers: nanoseconds the device spent in this channel's completed kernels.
    cb_status kernel_time(uint64_t& ns, std::string& error);
    // The PROGRESS registers: moves whenever the device retires a command or reaches a kernel
    // block of this channel (cb_gpu_table.progress).
    cb_status progress(uint64_t& count, std::string& error);
    // The KERNEL_RUNNING register: how long the kernel now running has run (0: none runs).
    cb_status kernel_running(uint64_t& ms, std::string& error);

    // ---- streams and events (null stream: the device's default stream) ------------------------
    cb_status stream_create(userspace_stream*& out, std::string& error);
    cb_status stream_destroy(userspace_stream* stream, std::string& error);  // queued work still runs
    cb_status stream_synchronize(userspace_stream* stream, std::string& error);
    cb_status stream_query(userspace_stream* stream, std::string& error);  // CB_OK or CB_ERR_BUSY
    cb_status event_create(userspace_event*& out, std::string& error);
    cb_status event_destroy(userspace_event* event, std::string& error);
    // Queues a timestamp command: the device's PTIMER lands in a host word, then the fence.
    cb_status event_record(userspace_event* event, userspace_stream* stream, std::string& error);
    cb_status event_synchronize(userspace_event* event, std::string& error);  // never recorded: CB_OK
    cb_status event_query(userspace_event* event, std::string& error);        // CB_OK or CB_ERR_BUSY
    // From the two device timestamps. CB_ERR_BUSY while either is pending; CB_ERR_INVALID_ARGUMENT
    // when either was never recorded.
    cb_status event_elapsed_ms(userspace_event* start, userspace_event* end, float& out_ms, std::string& error);
    // Waits for everything queued; reports a failure no synchronous call or stream has reported.
    cb_status device_synchronize(std::string& error);
    // Checks that both handles are this device's (stream null: the default stream) and queues
    // nothing: the ring runs in order, so the wait holds already.
    cb_status stream_wait_event(userspace_stream* stream, userspace_event* event, std::string& error);

    // ---- kernels ------------------------------------------------------------------------------
    // Parses the call, checks every tensor's bytes lie inside a live allocation, and queues the
    // encoded launch block (kept mapped until its command completes).
    cb_status launch_builtin(const cb_kernel_launch& launch, userspace_stream* stream, std::string& error);

    // ---- user modules (simulated GPUs) ---------------------------------------------------------
    // CB_MODULE_HOST_KERNELS: checks a cb_host_kernel_module image (host_kernels/) and registers
    // it. PTX, FATBIN, CUDA_SOURCE: the PTX the image holds (sim/modules/module_source.hpp),
    // compiled by the PTX engine, registered; `log` gets NVRTC's log for CUDA source. CUBIN and
    // every format without a registry or when the link is not simulated: CB_ERR_UNSUPPORTED.
    cb_status module_load(const void* image, size_t size, cb_module_format format, userspace_module*& out,
                          std::string& log, std::string& error);
    // Waits for the module's queued launches, then unregisters it and frees its variables.
    cb_status module_unload(userspace_module* module, std::string& error);
    // The device address and size of a PTX module's .global or .const variable `name` (its
    // variables live in VRAM from the load on, so copies to and from them reach the kernels, as
    // cuModuleGetGlobal's do); CB_ERR_NOT_FOUND for a name the module does not define.
    cb_status module_global(userspace_module* module, const std::string& name, uint64_t& address, uint64_t& bytes,
                            std::string& error);
    // Where parameter `index` of PTX kernel `name` lies in its parameter buffer, and its size.
    cb_status kernel_param_info(userspace_module* module, const std::string& name, uint32_t index, uint64_t& offset,
                                uint64_t& size, std::string& error);
    // launch.name: a kernel of the module (else CB_ERR_NOT_FOUND). Host kernels: every non-null
    // CB_ARG_DEVICE_PTR must lie inside a live allocation; the device gets its VRAM offset and
    // the bytes to the allocation's end. PTX kernels: the arguments are packed for the kernel's
    // .param list (a wrong count or type fails here, naming the parameter). Queued like a
    // built-in launch; a PTX kernel that touches memory outside VRAM fails its launch with
    // CB_ERR_ILLEGAL_ADDRESS.
    cb_status launch_kernel(userspace_module* module, const cb_kernel_launch& launch, userspace_stream* stream,
                            std::string& error);

    // ---- management ---------------------------------------------------------------------------
    cb_status get_telemetry(cb_gpu_telemetry& out, std::string& error);
    cb_status get_settings(cb_gpu_settings& out, std::string& error);
    cb_status get_setting_limits(cb_gpu_setting_limits& out, std::string& error);
    // Checked against the bounds registers first (nothing is written when any field is out of
    // bounds), then written field by field, each confirmed through reg::settings_error.
    cb_status apply_settings(const cb_gpu_settings& settings, std::string& error);
    // Reads PTIMER (nanoseconds); all ones or a failed read means the device is lost.
    cb_status heartbeat(uint64_t& out_counter, std::string& error);

private:
    enum class phase { created, probed, ready, closed };
    enum class host_direction { to_device, from_device };

    // Lifecycle (lifecycle_ held exclusively).
    cb_status probe_locked(std::string& error);
    cb_status init_locked(std::string& error);
    cb_status configure_locked(std::string& error);
    void release_dma_locked();
    // A reset's first step (lifecycle_ held, shared for a register reset): the reset written or
    // sent over the link, the queue abandoned.
    cb_status start_reset(cb_reset_kind kind, const char* name, std::string& error);
    static const char* reset_name(cb_reset_kind kind);  // null for an unknown kind

    // Lifecycle (lifecycle_ held, shared or exclusive).
    cb_status usable(std::string& error) const;
    // One board's memory for every process (device_sharing.cpp).
    cb_status reserve_memory(uint64_t bytes, std::string& error);
    void release_memory(uint64_t bytes);
    cb_status device_memory_used(uint64_t& used, std::string& error);
    cb_status read_process_row(uint32_t row, cb_gpu_process& out, std::string& error);
    cb_status lost_status(std::string& error) const;
    void mark_lost(const std::string& reason, cb_status cause = CB_ERR_DEVICE_LOST);

    std::shared_ptr<userspace_stream> find_stream(userspace_stream* stream) const;
    std::shared_ptr<userspace_event> find_event(userspace_event* event) const;
    cb_status stream_or_error(userspace_stream* handle, std::shared_ptr<userspace_stream>& out,
                              std::string& error) const;
    cb_status check_device_range(uint64_t address, uint64_t size, const char* what, std::string& error) const;

    cb_status host_copy(host_direction direction, uint64_t device_address, std::byte* host, size_t size,
                        userspace_stream* stream, std::string& error);
    // Submits one device-only command: asynchronous on a stream, waited for on the null stream.
    cb_status device_command(const hw::command& cmd, const char* what, userspace_stream* stream, std::string& error);
    cb_status wait_and_collect(uint64_t fence, error_sink& sink, std::string& error);
    // After a submission: on a stream, its fence moves up and the call returns; on the null
    // stream (s null) the call waits for `fence` and reports its failure.
    cb_status finish_submission(const std::shared_ptr<userspace_stream>& s, uint64_t fence, error_sink& sink,
                                std::string& error);
    // Copies `block` into the launch block arena (waiting while queued launches still use all
    // of it) and queues `op` on it.
    cb_status queue_launch_block(hw::opcode op, const std::vector<uint8_t>& block, const std::string& what,
                                 std::shared_ptr<error_sink> sink, uint64_t& fence, std::string& error);
    // Copies `size` bytes into the arena and queues `cmd` reading them (cmd.a = their address).
    cb_status queue_from_arena(hw::command cmd, const void* bytes, size_t size, const std::string& what,
                               std::shared_ptr<error_sink> sink, uint64_t& fence, std::string& error);
    // A small copy from pageable memory on a stream: staged in the arena, so the call returns
    // once the bytes are staged, without waiting for the device (as CUDA's staged copies do).
    cb_status staged_h2d(uint64_t dst, const std::byte* host, size_t size, userspace_stream* stream,
                         std::string& error);
    size_t staged_copy_limit() const noexcept;
    // A copy through a pinned range that holds the whole host range; `used` false when none does.
    cb_status pinned_copy(host_direction direction, uint64_t device_address, std::byte* host, size_t size,
                          userspace_stream* stream, bool& used, std::string& error);
    std::shared_ptr<pinned_range> find_pinned_locked(const std::byte* host, size_t size) const;  // pinned_mutex_ held
    // mem_free of managed memory: true when `ptr` starts a managed allocation (`st` says how
    // releasing it went).
    bool free_managed(uint64_t ptr, cb_status& st, std::string& error);
    // mem_free of memory another process shared: true when `ptr` is such an opening (one opening
    // undone; the last unmaps it). lifecycle_ held.
    bool free_opened_locked(uint64_t ptr, cb_status& st);
    // mem_free of an allocation this process shared: its pages private again (lifecycle_ held).
    void unshare_locked(uint64_t allocation);
    // Every shared and opened range given back, as a reset that releases VRAM or close leaves it.
    void forget_shared_locked();
    // The registered ranges a PTX launch's kernels reach (ptx_launch::host_windows), and marking
    // them used by the launch queued at `fence` (so unregistering waits for it).
    void add_host_windows(ptx_launch& launch) const;
    void host_windows_used(uint64_t fence) const;
    std::string iommu_budget_text(size_t asked);
    std::shared_ptr<userspace_module> find_module(userspace_module* module) const;
    void release_pinned_locked();   // lifecycle_ held exclusively
    void release_modules_locked();  // lifecycle_ held exclusively
    // A PTX module's variables placed in VRAM with their initial bytes (lifecycle_ held).
    cb_status place_module_symbols(userspace_module& m, std::string& error);
    // After a reset released VRAM: every module's variables placed again, as loaded.
    void replace_module_symbols_locked();
    // The device heap of malloc/free in kernels: placed in VRAM at the first launch that needs it,
    // `bytes` long (cudaLimitMallocHeapSize then), its bookkeeping header zeroed; kept until a reset
    // releases VRAM, as CUDA keeps a context's heap (lifecycle_ held).
    cb_status place_device_heap(uint64_t bytes, const std::string& name, std::string& error);
    bool runs_user_modules();  // a registry and a simulated GPU behind the link
    cb_status ptx_launch_block(const userspace_module& m, uint32_t index, const cb_kernel_launch& launch,
                               const std::string& name, std::vector<uint8_t>& block, std::string& error);
    cb_status host_kernel_launch_block(const userspace_module& m, uint32_t index, const cb_kernel_launch& launch,
                                       const std::string& name, std::vector<uint8_t>& block, std::string& error);

    link_port port_;
    register_access regs_;
    device_loss loss_;
    const userspace_options options_;
    fence_tracker tracker_;
    command_ring ring_;
    timestamp_slots stamps_;
    std::mutex launch_mutex_;
    launch_arena arena_;  // launch_mutex_ held, or lifecycle_ exclusively

    mutable std::shared_mutex lifecycle_;
    phase phase_ = phase::created;
    bool interrupts_on_ = false;
    cb_gpu_properties properties_{};
    const gpu_profile* profile_ = nullptr;
    std::atomic<uint64_t> launch_blocks_mapped_{0};
    uint64_t vram_base_ = 0;
    uint64_t vram_size_ = 0;
    uint64_t page_size_ = 4096;
    std::unique_ptr<vram_allocator> vram_;  // replaced by resets that release VRAM
    std::mutex heap_mutex_;
    uint64_t heap_address_ = 0, heap_bytes_ = 0;  // the device heap (place_device_heap); 0: none yet
    host_buffer fence_word_;
    dma_mapping fence_mapping_;

    std::mutex sharing_mutex_;  // a LO/HI pair or a process-table row is one sequence

    mutable std::mutex objects_mutex_;
    std::map<userspace_stream*, std::shared_ptr<userspace_stream>> streams_;
    std::map<userspace_event*, std::shared_ptr<userspace_event>> events_;
    std::map<userspace_module*, std::shared_ptr<userspace_module>> modules_;
    std::shared_ptr<module_registry> registry_;

    // Copies hold it shared from finding their range to queuing through it; register and
    // unregister hold it exclusively (after lifecycle_, never before).
    mutable std::shared_mutex pinned_mutex_;
    std::map<uintptr_t, std::shared_ptr<pinned_range>> pinned_;  // by start address
    std::map<uintptr_t, size_t> managed_;  // managed allocations (mmap'd, registered) by start; pinned_mutex_

    struct opened_memory {
        shared_pages pages;
        int32_t pid = 0;
        uint64_t pointer = 0;  // what mem_open_shared gave
        uint64_t bytes = 0;    // from there to the allocation's end
        uint64_t openings = 0;
    };
    std::mutex shares_mutex_;                   // after lifecycle_
    std::map<uint64_t, shared_pages> shared_;   // allocations this process shared, by start
    std::map<uint64_t, opened_memory> opened_;  // other processes' memory mapped here, by start
};

}  // namespace cudabridge::nv

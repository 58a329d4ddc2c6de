// What the runtime holds for one device: its allocator, streams, events, modules and pinned
// ranges, its sticky error, and the pending end-to-end checks of asynchronous copies. Every API
// call goes through call(): the device's gate, the sticky error, the memory epoch.
#pragma once

#include <cudabridge.h>
#include <cudabridge/core/error.hpp>
#include <cudabridge/host/device.hpp>

#include "allocator/caching_allocator.hpp"
#include "runtime/copy_run.hpp"
#include "runtime/errors.hpp"
#include "runtime/integrity.hpp"
#include "runtime/interprocess_event.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

struct cbStream_st;
struct cbEvent_st;
struct cbModule_st;

namespace cudabridge::host {

class session;

// A pointer as the device address it names.
inline uint64_t address_of(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// A call's view of the device: the plugin table, the instance, the device handle (valid while
// the ticket is held).
struct gpu_call {
    const cb_gpu_table* t;
    void* instance;
    cb_gpu_device* handle;
};

class device_context {
public:
    device_context(session& s, std::unique_ptr<host::device> dev);
    ~device_context();  // synchronizes and releases everything, then detaches
    device_context(const device_context&) = delete;
    device_context& operator=(const device_context&) = delete;

    host::device& dev() noexcept { return *dev_; }
    std::unique_ptr<host::device>& dev_ptr() noexcept { return dev_; }

    // Runs body(gpu_call&) -> cb_status under the device's gate; maps the status, makes device
    // loss and dropped memory sticky, records the thread's last error. A run of small copies
    // (copy_run.hpp) is checked first, unless the call is a small copy that may extend it.
    template <typename F>
    cbError_t call(const char* what, F&& body, bool may_extend_copy_run = false) {
        if (const cbError_t e = sticky(); e != cbSuccess) return set_last_error(e, sticky_text());
        host::device::ticket ticket;
        core::set_last_error({});
        take_launch_failure();
        cb_status st = dev_->enter(ticket);
        if (st != CB_OK) return fail(what, st);
        if (memory_epoch_.load(std::memory_order_relaxed) != dev_->memory_epoch()) return memory_dropped();
        gpu_call g{dev_->gpu(), dev_->gpu_instance(), ticket.handle()};
        if (!may_extend_copy_run && run_open_.load(std::memory_order_acquire)) st = end_copy_run(g);
        if (st == CB_OK) st = body(g);
        if (st == CB_OK) return cbSuccess;
        // The driver reports work a reset abandoned as an internal failure: a reset since the last
        // wait that found all work done says why.
        if (st == CB_ERR_INTERNAL && dev_->work_abandons() != abandons_waited_.load(std::memory_order_acquire))
            return abandoned_by_reset(what);
        return fail(what, st);
    }

    cbError_t sticky() const noexcept { return sticky_.load(std::memory_order_acquire); }
    cbError_t abandoned_by_reset(const char* what);
    std::string reset_cause() const;
    // A wait found the work queued before it done: resets before `abandons` took none of it.
    void all_work_done_after(uint64_t abandons) noexcept {
        abandons_waited_.store(abandons, std::memory_order_release);
    }
    void clear_sticky();
    cbError_t make_sticky(cbError_t e, const std::string& message);

    // ---- memory ----------------------------------------------------------------------------------
    cbError_t malloc(void** ptr, size_t size);
    cbError_t free(void* ptr);
    cbError_t mem_get_info(size_t* free, size_t* total);
    cbError_t kernel_time(unsigned long long* ns);
    cbError_t mem_host_pointer(void** host, const void* device, size_t size);
    cbError_t host_register(void* ptr, size_t size);
    cbError_t host_unregister(void* ptr);
    bool is_device_range(uint64_t address, uint64_t bytes) const;
    // Managed memory and zero-copy host memory (managed.cpp, ABI 1.9).
    cbError_t malloc_managed(void** ptr, size_t size, unsigned flags);
    cbError_t host_device_pointer(void** out, void* host, unsigned flags);
    bool is_managed_range(uint64_t address, uint64_t bytes) const;
    // True when `kind` names a side of the copy the device, that side is no device allocation but
    // pinned host memory, and every such side is (a copy to go where the pointers really are).
    bool names_pinned_as_device(const void* dst, const void* src, size_t count, cbMemcpyKind kind, bool dst_dev,
                                bool src_dev) const;
    cbError_t attribute(cbDeviceAttr attr, int& value);
    cbError_t memcpy(void* dst, const void* src, size_t count, cbMemcpyKind kind, cbStream_st* stream, bool async);
    cbError_t memset(void* ptr, int value, size_t count, cbStream_st* stream, bool async);
    void inject_copy_corruption() noexcept { corrupt_next_copy_.store(true); }

    // ---- streams and events ---------------------------------------------------------------------
    cbError_t stream_create(cbStream_st** out, unsigned flags);
    cbError_t stream_destroy(cbStream_st* s);
    cbError_t stream_synchronize(cbStream_st* s);
    cbError_t stream_query(cbStream_st* s);
    cbError_t stream_wait_event(cbStream_st* s, cbEvent_st* e);
    cbError_t event_create(cbEvent_st** out, unsigned flags = 0);
    cbError_t event_destroy(cbEvent_st* e);
    cbError_t event_record(cbEvent_st* e, cbStream_st* s);
    cbError_t event_synchronize(cbEvent_st* e);
    cbError_t event_query(cbEvent_st* e);
    cbError_t event_elapsed(float* ms, cbEvent_st* a, cbEvent_st* b);
    cbError_t synchronize();
    cbError_t reset();

    // ---- between processes (interprocess_memory.cpp, interprocess_waits.cpp) --------------------
    cbError_t ipc_get_mem_handle(cbIpcMemHandle_t* handle, void* ptr);
    cbError_t ipc_open_mem_handle(void** ptr, const cbIpcMemHandle_t& handle, unsigned flags);
    cbError_t ipc_close_mem_handle(void* ptr);
    cbError_t ipc_get_event_handle(cbIpcEventHandle_t* handle, cbEvent_st* e);
    cbError_t ipc_open_event_handle(cbEvent_st** out, const cbIpcEventHandle_t& handle);
    // cbLimitStackSize and cbLimitMallocHeapSize, which every later launch carries (kernel_limits.cpp).
    cbError_t set_limit(cbLimit limit, size_t value);
    cbError_t get_limit(size_t* value, cbLimit limit);

    // ---- kernels --------------------------------------------------------------------------------
    // Each tensor operand (a CB_ARG_BYTES cb_tensor_desc) lies inside one live allocation.
    cbError_t check_tensor_operands(const char* name, const cbKernelArg* args, size_t count);
    cbError_t launch_builtin(const char* name, cb_dtype dtype, const cbKernelArg* args, size_t count, cbStream_st* s);
    cbError_t module_load(cbModule_st** out, const void* image, size_t size, cb_module_format format);
    cbError_t module_unload(cbModule_st* m);
    // A module variable's device address and size; from then on copies may name its bytes as
    // they name an allocation's.
    cbError_t module_global(cbModule_st* m, const char* name, void** address, size_t* bytes);
    cbError_t kernel_param_info(cbModule_st* m, const char* name, size_t index, size_t* offset, size_t* size);
    // With `kernel_params` (cuLaunchKernel's kernelParams), `args` and `count` are not used.
    cbError_t launch_kernel(cbModule_st* m, const char* name, cbDim3 grid, cbDim3 block, const cbKernelArg* args,
                            size_t count, size_t shared_memory, cbStream_st* s, void* const* kernel_params = nullptr,
                            uint32_t flags = 0);

    bool owns(const cbStream_st* s) const;
    bool owns(const cbEvent_st* e) const;
    bool owns(const cbModule_st* m) const;

private:
    // An interprocess event's record: `marker`, recorded right after it, tells when the device
    // has passed it; the watcher thread then marks the ticket done for every process.
    struct watched_record {
        cbEvent_st* marker;
        std::shared_ptr<interprocess_event> event;
        uint64_t ticket;
    };
    cbError_t record_interprocess(cbEvent_st* e, cbStream_st* s);
    // A wait on an interprocess event whose latest record another process made: blocks until its
    // work is done. False when the latest record is this process's own (wait on the device).
    bool waited_elsewhere(cbEvent_st* e, const char* what, cbError_t& result);
    void watch_records();
    // True when `ptr` (an allocation's base) was shared, which it no longer is.
    bool forget_shared(uint64_t ptr);
    void stop_watching() noexcept;
    friend class integrity_checker;
    cbError_t fail(const char* what, cb_status st);
    cbError_t memory_dropped();
    cbError_t device_error(const char* what);  // cbSuccess while the device takes work
    std::string sticky_text() const;
    // The plugin stream a call runs on: the user's, or the legacy default stream (ordered after
    // the blocking streams' work first). Call under the ticket.
    cb_status prepare_stream(gpu_call& g, cbStream_st* s, cb_gpu_stream*& out);
    cb_status settle_checks(gpu_call& g, cbStream_st* s);
    cb_status settle_all_checks(gpu_call& g);
    // The checks of every stream whose work is done: after any wait returns, before the program
    // can reuse a buffer a finished copy filled (a wait on one stream may imply others finished).
    cb_status settle_finished_checks(gpu_call& g);
    void forget_overwritten_checks_locked(const void* host, size_t count);
    void release(bool usable) noexcept;  // the device's release hook
    void delete_objects() noexcept;      // objects_mutex_ held
    allocator_backend make_backend();
    host::pending_work pending();  // the supervisor's probe
    // How long the GPU has not moved work that started `oldest_ms` ago (objects_mutex_ held).
    uint64_t stalled_ms(uint64_t now_ns, uint64_t oldest_ms);
    cb_status create_default_stream(gpu_call& g);
    cb_status copy_once(gpu_call& g, void* dst, const void* src, size_t count, cbMemcpyKind kind,
                        cb_gpu_stream* stream);
    cb_status queue_check(gpu_call& g, cbStream_st* stream, cb_gpu_stream* ps, void* dst, const void* src, size_t count,
                          cbMemcpyKind kind);
    // A small checked host-to-device copy: queued, and added to the run of such copies (ending
    // the run first when it cannot join it).
    cb_status queue_small_copy(gpu_call& g, cbStream_st* stream, void* dst, const void* src, size_t count);
    // Queues the check of the run's span and starts a new run; the _locked form with
    // run_mutex_ held.
    cb_status end_copy_run(gpu_call& g);
    cb_status end_copy_run_locked(gpu_call& g);
    // cbFree of managed memory: true when `ptr` is one (`e` says how freeing it went).
    bool free_managed(void* ptr, cbError_t& e);
    void release_managed(const cb_gpu_table* t, void* instance, cb_gpu_device* handle);  // objects_mutex_ held
    cbError_t wait_for_managed(cbStream_st* stream, bool async);

    session& s_;
    std::unique_ptr<host::device> dev_;
    std::unique_ptr<caching_allocator> allocator_;
    std::atomic<cbError_t> sticky_{cbSuccess};
    std::atomic<uint64_t> abandons_waited_{0};  // work_abandons() at the last wait that found all done
    std::string sticky_message_;
    mutable std::mutex sticky_mutex_;
    std::atomic<uint64_t> memory_epoch_{0};
    std::atomic<bool> corrupt_next_copy_{false};

    mutable std::mutex objects_mutex_;
    std::set<cbStream_st*> streams_;
    std::set<cbEvent_st*> events_;
    std::vector<cbModule_st*> modules_;               // newest last
    std::atomic<size_t> module_globals_{0};           // variables handed out by module_global, in live modules
    std::map<uintptr_t, size_t> pinned_;              // registered host ranges by start
    std::map<uintptr_t, size_t> pinned_allocations_;  // from cbMallocHost
    std::map<uintptr_t, size_t> managed_;             // from cbMallocManaged, by start
    std::atomic<size_t> managed_count_{0};            // managed_.size(), read without the lock
    std::atomic<int> can_manage_{-1}, can_map_{-1};   // what the family said (-1: not asked yet)
    std::unique_ptr<cbStream_st> default_stream_;
    uint64_t progress_seen_ = 0;      // the GPU's progress counter at the last probe (objects_mutex_)
    uint64_t progress_moved_ns_ = 0;  // when that counter last moved; 0: not watched yet
    std::unique_ptr<integrity_checker> integrity_;
    std::mutex run_mutex_;  // taken before objects_mutex_, never after
    copy_run run_;
    std::atomic<bool> run_open_{false};  // run_ holds copies (read without the lock)
    bool has_stream_wait_ = false;
    std::atomic<uint64_t> stack_bytes_{CB_DEFAULT_STACK_BYTES};
    std::atomic<uint64_t> heap_bytes_{CB_DEFAULT_HEAP_BYTES};

    struct opened_range {
        uint64_t bytes = 0;     // from the start to the end of the other process's allocation
        uint64_t openings = 0;  // each cbIpcOpenMemHandle of it needs a close
    };
    std::map<uint64_t, opened_range> opened_memory_;  // other processes' memory opened here, by start
    std::atomic<size_t> opened_count_{0};             // opened_memory_.size(), read without the lock
    std::set<uint64_t> shared_allocations_;           // allocations cbIpcGetMemHandle shared (objects_mutex_)
    std::mutex watch_mutex_;
    std::condition_variable watch_wake_;
    std::deque<watched_record> watched_;
    bool watch_stop_ = false;
    std::thread watcher_;  // started by the first interprocess record
};

}  // namespace cudabridge::host

// The handles applications hold.
struct cbStream_st {
    cb_gpu_stream* handle = nullptr;  // null once the device dropped it
    unsigned flags = 0;
    bool is_default = false;
    cb_gpu_event* barrier = nullptr;          // recorded when another stream must wait for this one
    uint64_t submitted = 0;                   // work items queued
    uint64_t default_seen = 0;                // default-stream submissions this stream has waited for
    std::map<cbStream_st*, uint64_t> waited;  // default stream: what it waited for per stream
    uint64_t oldest_unfinished_ns = 0;
    std::vector<cudabridge::host::pending_check> checks;
    cudabridge::host::crc_arena arena;  // where the GPU writes the CRCs those checks read
};

struct cbEvent_st {
    cb_gpu_event* handle = nullptr;
    bool recorded = false;
    std::shared_ptr<cudabridge::host::interprocess_event> shared;  // cbEventInterprocess, or opened
    uint64_t ticket = 0;                                           // this process's latest record of it
};

struct cbModule_st {
    cb_gpu_module* handle = nullptr;
    std::vector<std::string> names;  // host-kernel modules: the symbols it has
    cb_module_format format = 0;
    std::map<uint64_t, uint64_t> globals;  // variables handed out by module_global: address -> bytes
};

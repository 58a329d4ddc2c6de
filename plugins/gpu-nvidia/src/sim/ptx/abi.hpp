// What generated kernel code and the block executor share: the block's environment, each
// thread's state record, the generic address windows, and the helpers the code calls.
//
// A kernel compiles to one "block function": a loop over the threads of a block that runs each
// runnable thread until it exits or parks at a barrier or a warp-wide instruction. Parking saves
// the registers live after that instruction into the thread's state record and records where it
// resumes; the executor runs the loop again once every thread has parked (a barrier) or performs
// the warp instruction for the parked lanes first (shfl, vote, ...). So values live across a
// barrier sit in per-thread context records, as in POCL's work-group functions and CuPBoP.
#pragma once

#include <atomic>
#include <cstdint>

namespace cudabridge::nv::ptx {

// Generic addresses: global ones are the device addresses of the simulated VRAM (and of the
// module's own .global variables, in their window); shared and local ones carry a window tag in
// the top four bits and the offset in the block's shared memory or the thread's local memory, and
// so do a kernel's parameters (cvta.param of the address `mov` gives a by-value parameter: its
// offset in the launch's parameter buffer).
inline constexpr uint64_t window_mask = 0xF000000000000000ull;
inline constexpr uint64_t shared_window = 0xF000000000000000ull;
inline constexpr uint64_t local_window = 0xE000000000000000ull;
inline constexpr uint64_t const_window = 0xD000000000000000ull;
inline constexpr uint64_t module_globals_window = 0xC000000000000000ull;
inline constexpr uint64_t param_window = 0xB000000000000000ull;
// A function's address (a vtable's entries, a function pointer): the window and the function's
// index in the module plus one. Only an indirect call reads it; a load or store there faults.
inline constexpr uint64_t function_window = 0xA000000000000000ull;
inline uint64_t function_address(size_t index) { return function_window | (uint64_t{index} + 1); }
// A cooperative launch's grid workspace (cooperative groups' grid.sync() counts arrivals there).
inline constexpr uint64_t grid_window = 0x9000000000000000ull;
inline constexpr uint32_t grid_workspace_bytes = 16;

enum thread_status : uint32_t { runnable = 0, at_barrier = 1, at_warp_op = 2, exited = 3 };

// The warp-wide instructions a thread can park at (thread_state::warp_op).
enum warp_op : uint32_t {
    warp_sync = 0,  // bar.warp.sync
    shfl_up = 1,
    shfl_down = 2,
    shfl_bfly = 3,
    shfl_idx = 4,
    vote_all = 5,
    vote_any = 6,
    vote_uni = 7,
    vote_ballot = 8,
    active_mask = 9,
    match_any = 10,
    match_all = 11,
    redux_add = 12,
    redux_min = 13,
    redux_max = 14,
    redux_umin = 15,
    redux_umax = 16,
    redux_and = 17,
    redux_or = 18,
    redux_xor = 19,
    // Before a volatile shared (or generic) access (layout.hpp's convergence points): the warp's
    // lanes go on together, so that each does one such access before any does its next.
    warp_converge = 20,
    // Tensor cores (matrix.hpp): wmma.mma and mma.sync (warp_b: the encoded matrix_op), and
    // ldmatrix (warp_b: the number of 8x8 matrices, bit 8: .trans). warp_c: where the lane's
    // matrix exchange area lies in its record: the fragments' registers go there when the lane
    // parks, and the result's come back there.
    matrix_mma = 21,
    matrix_load = 22,
    // mbarrier.test_wait/try_wait that found its phase incomplete, or a load that may be spinning
    // on a flag another thread or block sets (layout.hpp's is_yield_point): runs again after the
    // next pass.
    thread_yield = 23,
    // stmatrix (warp_b as ldmatrix's) and movmatrix.trans over the lanes' exchange areas.
    matrix_store = 24,
    matrix_move = 25,
};

// The bytes of a lane's matrix exchange area (kernels with tensor-core instructions): wmma.mma's
// A, B and C fragments of 8 registers each, at most.
inline constexpr uint32_t matrix_area_bytes = 128;

// One thread's record; the register save area and the thread's local memory follow it.
struct thread_state {
    uint32_t status;  // thread_status
    uint32_t resume;  // the resume point; 0 = the kernel's first instruction
    uint32_t tid[3];
    uint32_t warp_op;    // what the thread parked at (status at_warp_op)
    uint64_t warp_a;     // shfl: value; vote: predicate; match/redux: value
    uint64_t warp_b;     // shfl: lane / delta / mask
    uint64_t warp_c;     // shfl: clamp and segment mask
    uint32_t warp_mask;  // the instruction's member mask
    uint32_t warp_pred;  // result predicate (shfl: in range; match.all: all equal)
    uint64_t warp_result;
    uint32_t device_error;  // cudaGetLastError in a kernel: the thread's last device-runtime error
};
static_assert(sizeof(thread_state) <= 80);
inline constexpr uint32_t thread_state_header = 80;  // the register area starts 16-aligned

struct launch_fault {
    std::atomic<uint32_t> raised{0};
    uint64_t address = 0;
    uint32_t bytes = 0;
    // 1: outside memory; 3: trap; 4: a failed assert(); 5: cancelled; 6: stack overflow (address:
    // the stack bytes a call needed, 0 when the host's stack ran out first); 7: free() of an
    // address malloc did not return (address: it)
    uint32_t kind = 0;
};

// One block's environment, built by the executor for each block it runs.
// VRAM is mapped in pages of 64 KiB (a real GPU's large-page size): an access to a page no live
// allocation touches faults, as on hardware; one inside a mapped page does not.
inline constexpr uint32_t vram_page_shift = 16;

struct block_env {
    uint8_t* vram_host;  // VRAM offset 0 on the host
    uint64_t vram_base;  // its device address
    uint64_t vram_size;
    const uint8_t* page_map;  // per VRAM page (vram_page_shift), nonzero when mapped
    uint8_t* globals_host;    // the module's .global variables
    uint64_t globals_size;
    const uint8_t* const_host;  // the module's .const variables
    uint64_t const_size;
    uint8_t* shared;  // this block's shared memory (static, then dynamic)
    uint64_t shared_size;
    uint64_t local_size;    // bytes of local memory per thread (after the register area)
    uint32_t local_offset;  // where local memory starts in a thread's record
    uint32_t param_bytes;   // the size of the parameter buffer
    const uint8_t* params;  // the kernel's parameter buffer
    uint32_t ntid[3];
    uint32_t nctaid[3];
    uint32_t ctaid[3];
    uint32_t dynamic_shared;
    launch_fault* fault;
    uint64_t executed;     // instructions executed by the block (counted per basic block)
    uint64_t bytes_moved;  // bytes loaded and stored in global memory
    // Between the executor's passes over a block's threads: nonzero when the threads parked at a
    // barrier run too (the barrier is released), and how many threads the pass parked at a
    // barrier and at a warp-wide instruction, so the executor need not look at every record.
    uint32_t release_barrier;
    uint32_t parked_at_barrier;
    uint32_t parked_at_warp_op;
    // A released bar.red: how many threads arrived, and how many of them with a true predicate
    // (set by the executor with release_barrier; popc, and, or follow from the two).
    uint32_t barrier_true;
    uint32_t barrier_arrived;
    uint32_t reserved1;
    // Host memory kernels reach (kernel_module.hpp's host_memory; null: none), and the bytes the
    // block loaded and stored there: the resolver moves them out of bytes_moved, which the
    // generated code counts for every global access before it knows where the access lands.
    void* host_ranges;
    uint64_t host_bytes;
    // The spans of host memory the block reached last (host_memory::span): [first, end) at base,
    // replaced round robin (a kernel streams through a few arrays at once).
    uint64_t host_span_first[4];
    uint64_t host_span_end[4];
    uint8_t* host_span_base[4];
    uint32_t host_span_next;
    uint32_t reserved2;
    // Asked by cb_ptx_poll, every few thousand loop iterations of a running block: true when the
    // launch must stop now (a reset, the device closing); null: never.
    bool (*cancel)(void* context);
    void* cancel_context;
    // The device heap (device_heap.hpp) on the host and at its device address; size 0: none
    // (malloc returns NULL).
    uint8_t* heap_host;
    uint64_t heap_base;
    uint64_t heap_size;
    // A cooperative launch's grid workspace (%envreg1 and %envreg2: its address's high and low
    // words; 0 for other launches), the bytes behind the grid window, shared by all its blocks.
    uint32_t grid_workspace_high;
    uint32_t grid_workspace_low;
    uint8_t* grid_host;
    // Recursive kernels: the lowest host stack address a call may reach (the executor's frame
    // less a budget), so that deep recursion faults instead of overflowing the host thread.
    uint64_t stack_floor;
    // The grid's device_launch_queue (device_launch.hpp): what its kernels launch.
    void* device_launches;
};

// The stack a call takes in a recursive kernel besides the callee's own local variables (a GPU's
// call saves its return address and registers there).
inline constexpr uint64_t call_frame_bytes = 32;

// How many loop back-edges a function takes between two polls: cheap enough to vanish in a
// loop's cost, often enough that a cancelled launch stops within microseconds to milliseconds.
inline constexpr uint32_t poll_period = 1u << 14;

// Operations and rounding modes of cb_ptx_rounded_f32/f64 (directed rounding, .rz/.rm/.rp).
enum rounded_op : uint32_t {
    rounded_add = 0,
    rounded_sub = 1,
    rounded_mul = 2,
    rounded_fma = 3,  // a * b + c
    rounded_div = 4,
    rounded_sqrt = 5,
    rounded_rcp = 6,
};
enum rounding_mode : uint32_t { round_nearest = 0, round_toward_zero = 1, round_down = 2, round_up = 3 };

// cb_ptx_resolve's `how` bits: a generic address (the windows of shared, local, const, params
// apply), and a system-scope atomic (atom.sys: on host memory it acts on the host's own bytes,
// as a PCIe AtomicOp does, so that it is atomic with the CPU's atomics too; the launch's copy of
// a host page is atomic across the launch's blocks only).
enum resolve_how : uint32_t { resolve_generic = 1u << 0, resolve_system_atomic = 1u << 1 };

// The helpers generated code calls (bound in the JIT by these names).
extern "C" {
// A generic or global address outside the fast path (not plain VRAM): module globals, shared,
// local, const windows, reachable host memory; nullptr (and the launch's fault raised) when no
// memory holds it. `how`: resolve_how bits.
uint8_t* cb_ptx_resolve(block_env* env, thread_state* thread, uint64_t address, uint32_t bytes, uint32_t how);
// printf from a kernel: CUDA's vprintf(format, argument buffer).
int32_t cb_ptx_vprintf(block_env* env, thread_state* thread, uint64_t format, uint64_t args);
uint64_t cb_ptx_clock64(block_env* env);
void cb_ptx_trap(block_env* env);
// assert() failing in a kernel (CUDA's __assertfail): its message on stderr, then the launch fails.
void cb_ptx_assertfail(block_env* env, thread_state* thread, uint64_t message, uint64_t file, uint32_t line,
                       uint64_t function, uint32_t tid_x, uint32_t tid_y, uint32_t tid_z);
// An access outside shared, local or const memory that the generated code caught itself.
void cb_ptx_fault(block_env* env, uint64_t address, uint32_t bytes);
// At a loop's back-edge, every poll_period of them: nonzero when the block must stop (the launch
// faulted elsewhere, or it was cancelled: then the fault is raised as kind 5). A kernel that never
// ends can so still be stopped by a reset or by the program's exit.
uint32_t cb_ptx_poll(block_env* env);
// malloc/new in a kernel: a block of the device heap, or 0 (NULL) when none is free.
uint64_t cb_ptx_malloc(block_env* env, uint64_t bytes);
// free/delete: nonzero (and the launch's fault raised, kind 7) when `address` is not a block
// malloc returned that is still allocated.
uint32_t cb_ptx_free(block_env* env, uint64_t address);
// A call in a recursive kernel that does not fit the stack: raises the fault (kind 6).
void cb_ptx_stack_overflow(block_env* env, uint64_t needed);
// `op` of a, b (and c) rounded as `mode` says (rounded_op, rounding_mode): the host's IEEE
// operation under that rounding mode, exact for every input. Reads and changes nothing else.
float cb_ptx_rounded_f32(uint32_t op, uint32_t mode, float a, float b, float c);
double cb_ptx_rounded_f64(uint32_t op, uint32_t mode, double a, double b, double c);
// Dynamic parallelism (device_launch.hpp): a parameter buffer for a child grid of `kernel` (its
// kernel_address), or 0; the launch of the child whose arguments are in `buffer` (a CUDA error
// code); cudaGetErrorString's text in the device heap (0 without one).
uint64_t cb_ptx_parameter_buffer(block_env* env, uint64_t kernel, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
                                 uint32_t block_x, uint32_t block_y, uint32_t block_z, uint32_t shared);
uint32_t cb_ptx_launch_device(block_env* env, uint64_t buffer, uint64_t stream);
// cudaMemcpyAsync in a kernel (device to device): queued with the grid's launches; a CUDA error code.
uint32_t cb_ptx_memcpy_device(block_env* env, uint64_t to, uint64_t from, uint64_t bytes, uint32_t kind);
uint64_t cb_ptx_error_string(block_env* env, uint32_t code);
}

}  // namespace cudabridge::nv::ptx

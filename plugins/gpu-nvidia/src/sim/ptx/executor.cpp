// Runs a launch: blocks spread over the compute engine's threads, each block's threads run by
// the kernel's block function until all exit; between passes the executor releases a barrier
// (every live thread parked at one) or performs the warp-wide instructions threads parked at,
// for each group of lanes of a warp parked at the same instruction, or lets a warp's lanes parked
// at convergence points (volatile shared accesses) go on in step. The generated code counts the
// threads it parks, so the executor reads the records only for warp instructions.
#include "sim/ptx/matrix.hpp"
#include "sim/ptx/program.hpp"

#include "sim/ptx/device_launch.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <cstring>
#include <mutex>
#include <thread>

namespace cudabridge::nv::ptx {
namespace {

thread_state& state_at(std::vector<uint8_t>& states, uint32_t stride, uint32_t t) {
    return *reinterpret_cast<thread_state*>(states.data() + uint64_t(stride) * t);
}

// One warp instruction for the lanes `group` (indices into the block) that parked at it.
void perform(std::vector<uint8_t>& states, uint32_t stride, uint32_t warp_first, const std::vector<uint32_t>& group) {
    uint32_t present = 0;
    for (uint32_t t : group) present |= 1u << (t - warp_first);
    auto lane_state = [&](uint32_t lane) -> thread_state* {
        if (!(present & (1u << lane))) return nullptr;
        return &state_at(states, stride, warp_first + lane);
    };
    const uint32_t op = state_at(states, stride, group[0]).warp_op;
    if (op == matrix_mma || op == matrix_load || op == matrix_store || op == matrix_move) {
        // Tensor cores (matrix.hpp): over the lanes' exchange areas, all at once.
        uint32_t* areas[32] = {};
        for (uint32_t t : group) {
            thread_state& s = state_at(states, stride, t);
            areas[t - warp_first] = reinterpret_cast<uint32_t*>(reinterpret_cast<uint8_t*>(&s) + s.warp_c);
        }
        const thread_state& first = state_at(states, stride, group[0]);
        if (op == matrix_mma)
            perform_matrix_mma(matrix_op::decode(first.warp_b), areas);
        else if (op == matrix_load)
            perform_ldmatrix(static_cast<uint32_t>(first.warp_b & 0xFF), (first.warp_b >> 8) & 1, areas);
        else if (op == matrix_store)
            perform_stmatrix(static_cast<uint32_t>(first.warp_b & 0xFF), (first.warp_b >> 8) & 1, areas);
        else
            perform_movmatrix(areas);
        for (uint32_t t : group) state_at(states, stride, t).status = runnable;
        return;
    }
    for (uint32_t t : group) {
        thread_state& s = state_at(states, stride, t);
        const uint32_t lane = t - warp_first;
        const uint32_t members = s.warp_mask & present;
        s.warp_pred = 1;
        switch (op) {
        case warp_sync:
            break;
        case shfl_up:
        case shfl_down:
        case shfl_bfly:
        case shfl_idx: {
            const int32_t b = static_cast<int32_t>(s.warp_b & 0x1f);
            const uint32_t c = static_cast<uint32_t>(s.warp_c);
            const int32_t clamp = static_cast<int32_t>(c & 0x1f), seg = static_cast<int32_t>((c >> 8) & 0x1f);
            const int32_t l = static_cast<int32_t>(lane);
            const int32_t max_lane = (l & seg) | (clamp & ~seg), min_lane = l & seg;
            int32_t j;
            bool in_range;
            if (op == shfl_up)
                j = l - b, in_range = j >= max_lane;
            else if (op == shfl_down)
                j = l + b, in_range = j <= max_lane;
            else if (op == shfl_bfly)
                j = l ^ b, in_range = j <= max_lane;
            else
                j = min_lane | (b & ~seg), in_range = j <= max_lane;
            if (!in_range) j = l;
            const thread_state* from = (j >= 0 && j < 32) ? lane_state(static_cast<uint32_t>(j)) : nullptr;
            // A source lane in range that does not take part (outside the member mask, exited, or
            // past the block's last thread) gives 0: the PTX ISA leaves the value undefined, and
            // code that runs on GPUs relies on it adding nothing (NVIDIA's reduction sample shuffles
            // down by 16 with 8 lanes, and with blocks of fewer than 32 threads).
            s.warp_result = (from ? from->warp_a : 0) & 0xFFFFFFFFu;
            s.warp_pred = in_range ? 1 : 0;
            break;
        }
        case vote_all:
        case vote_any:
        case vote_uni:
        case vote_ballot: {
            uint32_t ballot = 0;
            for (uint32_t m = members; m; m &= m - 1) {
                const uint32_t other = static_cast<uint32_t>(__builtin_ctz(m));
                if (lane_state(other)->warp_a & 1) ballot |= 1u << other;
            }
            if (op == vote_ballot)
                s.warp_result = ballot;
            else if (op == vote_all)
                s.warp_pred = ballot == members;
            else if (op == vote_any)
                s.warp_pred = ballot != 0;
            else
                s.warp_pred = ballot == 0 || ballot == members;
            break;
        }
        case active_mask:
            s.warp_result = present;
            break;
        case match_any:
        case match_all: {
            uint32_t same = 0;
            for (uint32_t m = members; m; m &= m - 1) {
                const uint32_t other = static_cast<uint32_t>(__builtin_ctz(m));
                if (lane_state(other)->warp_a == s.warp_a) same |= 1u << other;
            }
            if (op == match_any)
                s.warp_result = same;
            else
                s.warp_result = same == members ? members : 0, s.warp_pred = same == members;
            break;
        }
        default: {  // redux.sync
            uint64_t acc = 0;
            bool first = true;
            for (uint32_t m = members; m; m &= m - 1) {
                const uint64_t v = lane_state(static_cast<uint32_t>(__builtin_ctz(m)))->warp_a;
                const auto sv = static_cast<int32_t>(v), sa = static_cast<int32_t>(acc);
                const auto uv = static_cast<uint32_t>(v), ua = static_cast<uint32_t>(acc);
                if (first)
                    acc = v, first = false;
                else if (op == redux_add)
                    acc = ua + uv;
                else if (op == redux_min)
                    acc = static_cast<uint32_t>(std::min(sa, sv));
                else if (op == redux_max)
                    acc = static_cast<uint32_t>(std::max(sa, sv));
                else if (op == redux_umin)
                    acc = std::min(ua, uv);
                else if (op == redux_umax)
                    acc = std::max(ua, uv);
                else if (op == redux_and)
                    acc = ua & uv;
                else if (op == redux_or)
                    acc = ua | uv;
                else
                    acc = ua ^ uv;
            }
            s.warp_result = acc & 0xFFFFFFFFu;
        }
        }
        s.status = runnable;
    }
}

// How many releases in a row a warp may hold some of its lanes back at a later convergence
// point: then all its parked lanes go on once, so that a lane spinning on a flag another lane of
// its warp sets later in the kernel cannot hold that lane back for ever.
constexpr uint32_t held_back_rounds = 1u << 14;

// After a pass with threads parked at warp instructions: performs them for each group of lanes
// of a warp parked at the same instruction, which makes those lanes runnable again. A warp with
// lanes parked at a convergence point (warp_converge: before a volatile shared access) moves in
// step instead: only the lanes parked at its earliest point in the kernel go on (the smallest
// resume point, which follows the body's order), and the others wait for them there, as lanes
// that skipped a branch wait where it rejoins. Each lane that goes on does one access and parks
// at its next, so all lanes' accesses of one step land before any lane's of the next. Lanes at a
// block barrier or exited are not waited for.
// Returns how many of the parked threads had yielded (thread_yield).
uint32_t perform_warp_ops(std::vector<uint8_t>& states, uint32_t stride, uint32_t threads,
                          std::vector<uint32_t>& held_back) {
    std::vector<uint32_t> group;
    // Threads that found an mbarrier phase incomplete, or loaded a flag they spin on, try again in
    // the next pass.
    uint32_t yielded = 0;
    for (uint32_t t = 0; t < threads; ++t) {
        thread_state& s = state_at(states, stride, t);
        if (s.status == at_warp_op && s.warp_op == thread_yield) s.status = runnable, ++yielded;
    }
    for (uint32_t w = 0; w < threads; w += 32) {
        const uint32_t end = std::min(threads, w + 32);
        bool converging = false;
        uint32_t earliest = UINT32_MAX, parked = 0;
        for (uint32_t t = w; t < end; ++t) {
            const thread_state& s = state_at(states, stride, t);
            if (s.status != at_warp_op) continue;
            converging |= s.warp_op == warp_converge;
            earliest = std::min(earliest, s.resume);
            ++parked;
        }
        if (!parked) continue;
        uint32_t& rounds = held_back[w / 32];
        const bool in_step = converging && ++rounds < held_back_rounds;
        for (uint32_t t = w; t < end; ++t) {
            thread_state& s = state_at(states, stride, t);
            if (s.status != at_warp_op || (in_step && s.resume != earliest)) continue;
            // The lanes of this warp parked at the same instruction (the same resume point).
            group.clear();
            for (uint32_t u = t; u < end; ++u) {
                thread_state& o = state_at(states, stride, u);
                if (o.status == at_warp_op && o.resume == s.resume) group.push_back(u);
            }
            if (s.warp_op == warp_converge)
                for (uint32_t u : group) state_at(states, stride, u).status = runnable;
            else
                perform(states, stride, w, group);
            parked -= static_cast<uint32_t>(group.size());
        }
        if (!in_step || !parked) rounds = 0;
    }
    return yielded;
}

// For a bar.red about to be released: every live thread parked at it left its predicate in its
// record (warp_a); a plain barrier's threads left whatever, which nothing reads.
void count_barrier_predicates(block_env& env, std::vector<uint8_t>& states, uint32_t stride, uint32_t threads) {
    env.barrier_true = env.barrier_arrived = 0;
    for (uint32_t t = 0; t < threads; ++t) {
        const thread_state& s = state_at(states, stride, t);
        if (s.status != at_barrier) continue;
        ++env.barrier_arrived;
        env.barrier_true += (s.warp_a & 1) ? 1 : 0;
    }
}

// How much of a host thread's stack a block's recursive calls may take (worker threads have 8 MiB).
constexpr uint64_t host_stack_budget = uint64_t{4} << 20;
// The most thread records and shared memory a cooperative launch keeps resident at once.
constexpr uint64_t max_cooperative_bytes = uint64_t{2} << 30;

std::string stack_overflow_text(uint64_t needed, uint64_t stack) {
    if (needed == 0)
        return "stack overflow: calls nested deeper than the simulated GPU can run (its host thread's stack)";
    return "stack overflow: a call needs " + std::to_string(needed) + " bytes of stack per thread, more than the " +
           std::to_string(stack) + " bytes there are (cudaDeviceSetLimit(cudaLimitStackSize, ...) sets more)";
}

// Runs a block's threads pass after pass until all exit (or a fault). After a pass every live
// thread has parked or exited: warp instructions and convergence points are taken first; when
// none is pending, every live thread waits at a barrier, and the next pass releases it.
// `pass` counts the block's passes so far (0: a new block). With `may_wait` (a cooperative
// launch, whose blocks run in turns on one host thread), a pass whose threads only yielded (they
// wait for another block: a grid-wide barrier) ends the turn: false, and the block goes on where
// it stopped at its next turn. True once every thread exited or the launch faulted.
bool run_block(block_function fn, block_env& env, std::vector<uint8_t>& states, uint32_t stride, uint32_t threads,
               bool parks, std::vector<uint32_t>& held_back, bool may_wait, uint32_t& pass) {
    if (pass == 0) {
        env.release_barrier = 0;
        if (parks) std::fill(held_back.begin(), held_back.end(), 0);
    }
    for (;;) {
        ++pass;
        env.parked_at_barrier = env.parked_at_warp_op = 0;
        fn(&env, states.data(), stride, threads);
        if (!parks || env.fault->raised.load(std::memory_order_relaxed)) return true;
        // Every 64 passes the block says it is moving (the watchdog judges progress: a block of
        // tensor-core steps, each a pass, ran 4096 passes in more than its 5 s and was reset as
        // hung), and a reset can stop it: threads waiting on an mbarrier another never arrives at
        // pass without end.
        if (pass % 64 == 0 && cb_ptx_poll(&env)) return true;
        if (env.parked_at_warp_op) {
            const uint32_t yielded = perform_warp_ops(states, stride, threads, held_back);
            env.release_barrier = 0;
            if (yielded == env.parked_at_warp_op) {
                if (may_wait) return false;
                std::this_thread::yield();  // it waits for another block: let that one's thread run
            }
        } else if (env.parked_at_barrier) {
            env.release_barrier = 1;
            count_barrier_predicates(env, states, stride, threads);
        } else {
            return true;
        }
    }
}

// Each thread record's %tid, from its index in the block.
void set_thread_indices(std::vector<uint8_t>& states, uint32_t stride, uint32_t threads, const uint32_t block[3]) {
    for (uint32_t t = 0; t < threads; ++t) {
        thread_state& s = state_at(states, stride, t);
        s.tid[0] = t % block[0];
        s.tid[1] = (t / block[0]) % block[1];
        s.tid[2] = t / (block[0] * block[1]);
    }
}

// A cooperative launch's blocks, all resident: each keeps its threads' records and its shared
// memory between its turns; a block's turn ends when it finishes or its threads only wait for
// other blocks (run_block's may_wait).
struct resident_grid {
    struct block {
        block_env env{};
        std::vector<uint8_t> states, shared;
        std::vector<uint32_t> held_back;
        uint32_t pass = 0;
        bool done = false;
    };
    std::vector<block> blocks;
    uint32_t stride, threads;
    bool passes;
    uint64_t executed = 0, bytes = 0, host_bytes = 0, faulted_block = 0;  // faulted_block: its index + 1
    bool aborted = false;

    resident_grid(const block_env& base, const kernel_layout& k, const launch_request& r, uint32_t stride_,
                  uint32_t threads_, bool passes_)
        : blocks(uint64_t{r.grid[0]} * r.grid[1] * r.grid[2]), stride(stride_), threads(threads_), passes(passes_) {
        const uint32_t records = k.parks ? threads : 1;
        uint32_t at[3] = {0, 0, 0};
        for (block& b : blocks) {
            b.env = base;
            std::memcpy(b.env.ctaid, at, sizeof at);
            if (++at[0] == r.grid[0] && (at[0] = 0, ++at[1] == r.grid[1])) at[1] = 0, ++at[2];
            b.states.assign(uint64_t{stride} * records, 0);
            b.shared.assign(std::max<uint64_t>(base.shared_size, 1), 0);
            b.env.shared = b.shared.data();
            b.held_back.assign((threads + 31) / 32, 0);
            if (k.parks) set_thread_indices(b.states, stride, threads, r.block);
        }
    }

    void run(block_function fn, const std::function<bool()>& abort) {
        for (uint64_t left = blocks.size(); left;) {
            for (uint64_t i = 0; i < blocks.size(); ++i) {
                block& b = blocks[i];
                if (b.done) continue;
                if (abort && abort()) return void(aborted = true);
                if (run_block(fn, b.env, b.states, stride, threads, passes, b.held_back, true, b.pass)) {
                    b.done = true;
                    --left;
                    executed += b.env.executed;
                    bytes += b.env.bytes_moved;
                    host_bytes += b.env.host_bytes;
                }
                if (b.env.fault->raised.load(std::memory_order_relaxed)) return void(faulted_block = i + 1);
            }
        }
    }
};

}  // namespace

block_shape program::launch_shape(size_t kernel, const uint32_t block[3], uint32_t dynamic_shared) const {
    const kernel_layout& k = layout_.kernels.at(kernel);
    block_shape s;
    std::memcpy(s.ntid, block, sizeof s.ntid);
    // Dynamic shared memory starts at the static part's end, rounded up to its alignment.
    s.shared_size =
        uint64_t{(k.static_shared + k.dynamic_shared_align - 1) / k.dynamic_shared_align * k.dynamic_shared_align} +
        dynamic_shared;
    return s;
}

// The first launch of a kernel with a shape compiles it; a large kernel (CUB's onesweep radix
// sort: thousands of unrolled lines) takes seconds of LLVM. The compile runs on a thread of its
// own while this one asks `abort` every 50 ms, which tells the watchdog the launch is moving (a
// compile is progress, not a hang); it cannot be cut short, so a reset waits for it.
block_function program::compile_moving(size_t kernel, const block_shape& shape, std::string& why,
                                       const std::function<bool()>& abort) const {
    if (!abort) return code_for(kernel, shape, why);
    auto compiled = std::async(std::launch::async, [&] { return code_for(kernel, shape, why); });
    while (compiled.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) (void)abort();
    return compiled.get();
}

launch_outcome program::launch(const launch_request& r, const device_memory& memory, const block_runner& run,
                               const std::function<bool()>& abort) const {
    return launch_nested(r, memory, run, abort, 0);
}

// The grid, then the grids its kernels launched (device_launch.hpp), each with theirs after it.
launch_outcome program::launch_nested(const launch_request& r, const device_memory& memory, const block_runner& run,
                                      const std::function<bool()>& abort, uint32_t depth) const {
    device_launch_queue queue;
    queue.depth = depth;
    queue.param_bytes = &kernel_param_bytes_;
    launch_outcome out = run_grid(r, memory, run, abort, queue);
    if (r.heap_bytes && r.heap_address >= memory.base && r.heap_address - memory.base < memory.size)
        release_unlaunched(queue, memory.host + (r.heap_address - memory.base), r.heap_address, r.heap_bytes);
    if (out.status != CB_OK) return out;
    const std::string& parent = layout_.kernels.at(r.kernel).name;
    for (device_launch& child : queue.launches) {
        if (child.copy_bytes) {  // checked inside VRAM when it was queued
            std::memmove(memory.host + (child.copy_to - memory.base), memory.host + (child.copy_from - memory.base),
                         child.copy_bytes);
            out.bytes_moved += 2 * child.copy_bytes;
            continue;
        }
        launch_request c;
        c.kernel = child.kernel;
        std::copy_n(child.grid, 3, c.grid);
        std::copy_n(child.block, 3, c.block);
        c.dynamic_shared = child.shared;
        c.params = std::move(child.params);
        c.symbols = r.symbols;
        c.stack_bytes = r.stack_bytes;
        c.heap_address = r.heap_address;
        c.heap_bytes = r.heap_bytes;
        const launch_outcome o = launch_nested(c, memory, run, abort, depth + 1);
        out.executed += o.executed;
        out.bytes_moved += o.bytes_moved;
        out.host_bytes += o.host_bytes;
        out.threads += o.threads;
        if (o.status != CB_OK) {
            out.status = o.status;
            out.message = o.message + " (a grid that kernel '" + parent + "' launched)";
            return out;
        }
    }
    return out;
}

launch_outcome program::run_grid(const launch_request& r, const device_memory& memory, const block_runner& run,
                                 const std::function<bool()>& abort, device_launch_queue& queue) const {
    launch_outcome out;
    const kernel_layout& k = layout_.kernels.at(r.kernel);
    const uint32_t threads = r.block[0] * r.block[1] * r.block[2];
    const uint64_t blocks = uint64_t{r.grid[0]} * r.grid[1] * r.grid[2];
    const block_shape shape = launch_shape(r.kernel, r.block, r.dynamic_shared);
    const uint64_t shared_bytes = shape.shared_size;
    if (r.params.size() != k.param_bytes) {
        out.status = CB_ERR_INVALID_ARGUMENT;
        out.message = "kernel '" + k.name + "': a parameter buffer of " + std::to_string(r.params.size()) +
                      " bytes for " + std::to_string(k.param_bytes);
        return out;
    }
    std::string why;
    const block_function fn = compile_moving(r.kernel, shape, why, abort);
    if (!fn) {
        out.status = CB_ERR_INTERNAL;
        out.message = "kernel '" + k.name + "': " + why;
        return out;
    }
    launch_fault fault;
    std::atomic<uint64_t> executed{0}, moved{0}, host_moved{0};
    std::atomic<bool> aborted{false};
    std::atomic<uint64_t> fault_block{0};

    // Without a page map every page of the memory is mapped.
    std::vector<uint8_t> all_mapped;
    if (!memory.page_map) all_mapped.assign((memory.size >> vram_page_shift) + 1, 1);
    block_env base{};
    base.vram_host = memory.host;
    base.vram_base = memory.base;
    base.vram_size = memory.size;
    base.page_map = memory.page_map ? memory.page_map : all_mapped.data();
    uint8_t* symbols = own_symbols_.data();
    if (r.symbols) {
        const uint64_t bytes = symbol_bytes();
        if (r.symbols < memory.base || r.symbols - memory.base > memory.size ||
            memory.size - (r.symbols - memory.base) < bytes) {
            out.status = CB_ERR_INVALID_ARGUMENT;
            out.message = "kernel '" + k.name + "': the module's variables are not inside VRAM";
            return out;
        }
        symbols = memory.host + (r.symbols - memory.base);
    }
    base.globals_host = symbols;
    base.globals_size = layout_.globals_init.size();
    base.const_host = symbols + const_base_;
    base.const_size = layout_.const_init.size();
    base.shared_size = shared_bytes;
    // A recursive kernel's local memory is its call stack: what the launch gives, at least its
    // own frames.
    base.local_size = k.recursive ? std::max<uint64_t>(k.local_bytes, r.stack_bytes) : k.local_bytes;
    base.local_offset = thread_state_header + k.register_bytes;
    const uint32_t stride =
        k.recursive ? static_cast<uint32_t>((base.local_offset + base.local_size + 15) / 16 * 16) : k.state_stride;
    if (r.heap_bytes) {
        if (r.heap_address < memory.base || r.heap_address - memory.base > memory.size ||
            memory.size - (r.heap_address - memory.base) < r.heap_bytes) {
            out.status = CB_ERR_INVALID_ARGUMENT;
            out.message = "kernel '" + k.name + "': the device heap is not inside VRAM";
            return out;
        }
        base.heap_host = memory.host + (r.heap_address - memory.base);
        base.heap_base = r.heap_address;
        base.heap_size = r.heap_bytes;
    }
    base.params = r.params.data();
    base.param_bytes = static_cast<uint32_t>(r.params.size());
    std::memcpy(base.ntid, r.block, sizeof base.ntid);
    std::memcpy(base.nctaid, r.grid, sizeof base.nctaid);
    base.dynamic_shared = r.dynamic_shared;
    base.fault = &fault;
    base.device_launches = &queue;
    base.host_ranges = memory.host_ranges;
    // Loops ask this now and then (cb_ptx_poll): a block that never ends still stops for a reset.
    if (abort) {
        base.cancel = [](void* context) { return (*static_cast<const std::function<bool()>*>(context))(); };
        base.cancel_context = const_cast<std::function<bool()>*>(&abort);
    }

    // A cooperative launch: every block resident at once, in turns on one host thread.
    std::array<uint8_t, grid_workspace_bytes> grid_workspace{};
    if (r.cooperative) {
        const uint64_t resident = blocks * (uint64_t{stride} * threads + shared_bytes);
        if (resident > max_cooperative_bytes) {
            out.status = CB_ERR_INVALID_ARGUMENT;
            out.message = "kernel '" + k.name + "': a cooperative launch of " + std::to_string(blocks) +
                          " blocks would keep " + std::to_string(resident >> 20) +
                          " MiB of thread records resident at once (at most " +
                          std::to_string(max_cooperative_bytes >> 20) + ")";
            return out;
        }
        base.grid_host = grid_workspace.data();
        base.grid_workspace_high = static_cast<uint32_t>(grid_window >> 32);
        base.grid_workspace_low = 0;
        run(1, [&](uint64_t, uint64_t) {
            const char here = 0;
            base.stack_floor = reinterpret_cast<uintptr_t>(&here) - host_stack_budget;
            resident_grid grid{base, k, r, stride, threads, k.parks && k.region_barriers.empty()};
            grid.run(fn, abort);
            executed += grid.executed;
            moved += grid.bytes;
            host_moved += grid.host_bytes;
            if (grid.faulted_block) fault_block = grid.faulted_block;
            if (grid.aborted) aborted = true;
        });
    } else
        run(blocks, [&](uint64_t begin, uint64_t end) {
            // A kernel that never parks runs its threads one after another in one record.
            const uint32_t records = k.parks ? threads : 1;
            std::vector<uint8_t> states(uint64_t(stride) * records);
            // Deep recursion faults before it reaches the end of this host thread's stack.
            const char here = 0;
            const uint64_t stack_floor = reinterpret_cast<uintptr_t>(&here) - host_stack_budget;
            std::vector<uint8_t> shared(std::max<uint64_t>(shared_bytes, 1));
            std::vector<uint32_t> held_back((threads + 31) / 32);  // per warp: releases holding lanes back
            // A thread's index is the same in every block: set once.
            if (k.parks) set_thread_indices(states, stride, threads, r.block);
            // Counted per chunk: one atomic add per chunk, not three per block from every thread.
            struct totals {
                std::atomic<uint64_t>&executed, &moved, &host_moved;
                uint64_t ran = 0, bytes = 0, host_bytes = 0;
                ~totals() {
                    executed.fetch_add(ran, std::memory_order_relaxed);
                    moved.fetch_add(bytes, std::memory_order_relaxed);
                    host_moved.fetch_add(host_bytes, std::memory_order_relaxed);
                }
            } chunk{executed, moved, host_moved};
            // The block index advances x, then y, then z, without divisions.
            uint32_t at[3] = {static_cast<uint32_t>(begin % r.grid[0]),
                              static_cast<uint32_t>((begin / r.grid[0]) % r.grid[1]),
                              static_cast<uint32_t>(begin / (uint64_t{r.grid[0]} * r.grid[1]))};
            // Straight regions run in one call of the block function, without statuses.
            const bool passes = k.parks && k.region_barriers.empty();
            for (uint64_t b = begin; b < end; ++b) {
                if (fault.raised.load(std::memory_order_relaxed)) return;
                if (abort && abort()) return aborted.store(true);
                block_env env = base;
                env.stack_floor = stack_floor;
                std::memcpy(env.ctaid, at, sizeof at);
                if (++at[0] == r.grid[0] && (at[0] = 0, ++at[1] == r.grid[1])) at[1] = 0, ++at[2];
                env.shared = shared.data();
                if (shared_bytes) std::fill(shared.begin(), shared.end(), 0);
                for (uint32_t t = 0; passes && t < threads; ++t) {
                    thread_state& s = state_at(states, stride, t);
                    s.status = runnable;
                    s.resume = 0;
                }
                uint32_t pass = 0;
                run_block(fn, env, states, stride, threads, passes, held_back, false, pass);
                chunk.ran += env.executed;
                chunk.bytes += env.bytes_moved;
                chunk.host_bytes += env.host_bytes;
                if (fault.raised.load(std::memory_order_relaxed)) {
                    uint64_t none = 0;
                    fault_block.compare_exchange_strong(none, b + 1);
                    return;
                }
            }
        });
    out.executed = executed.load();
    out.bytes_moved = moved.load();
    out.host_bytes = host_moved.load();
    out.threads = blocks * threads;
    if (aborted.load() || (fault.raised.load() && fault.kind == 5)) {
        out.status = CB_ERR_DEVICE_LOST;
        out.message = "kernel '" + k.name + "': abandoned by a reset";
    } else if (fault.raised.load()) {
        out.status = fault.kind == 4 ? CB_ERR_ASSERT : fault.kind == 3 ? CB_ERR_INTERNAL : CB_ERR_ILLEGAL_ADDRESS;
        const uint64_t blk = fault_block.load() ? fault_block.load() - 1 : 0;
        const std::string what = fault.kind == 3   ? std::string("trap")
                                 : fault.kind == 4 ? std::string("device-side assertion failed")
                                 : fault.kind == 6 ? stack_overflow_text(fault.address, base.local_size)
                                 : fault.kind == 7 ? "free() of " + sdk::hex_text(fault.address) +
                                                         ", which is not a block malloc returned and did not free yet"
                                                   : "illegal address " + sdk::hex_text(fault.address) + " (" +
                                                         std::to_string(fault.bytes) + " bytes)";
        out.message = "kernel '" + k.name + "': " + what + " in block " + std::to_string(blk);
    }
    return out;
}

}  // namespace cudabridge::nv::ptx

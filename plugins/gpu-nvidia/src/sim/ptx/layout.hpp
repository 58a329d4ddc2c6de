// Where everything of a parsed PTX module lives when it runs: each kernel's parameter buffer
// (offsets by CUDA's alignment rules, which the launch side follows to pack arguments), its
// static shared memory, each function's local depot, the thread record with its register save
// area, and the module's .global and .const variables with their initial bytes. Also the check
// that refuses, at load time, what the engine does not run, naming the instruction and its line.
#pragma once

#include "sim/ptx/ast.hpp"
#include "sim/ptx/barrier_regions.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

struct param_slot {
    std::string name;
    scalar_type type;
    uint32_t offset = 0;
    uint32_t size = 0;  // bytes (a byte array for structs passed by value)
    uint32_t align = 1;
    bool is_array = false;  // .b8 name[N]: a struct by value
};

struct kernel_layout {
    std::string name;
    const function* fn = nullptr;
    std::vector<param_slot> params;
    uint32_t param_bytes = 0;
    std::map<std::string, uint32_t> shared_offsets;  // every shared variable the kernel can see
    uint32_t static_shared = 0;
    uint32_t dynamic_shared_align = 16;  // where extern .shared arrays start: after the static ones
    uint32_t local_bytes = 0;            // per thread, the whole call tree
    uint32_t register_bytes = 0;         // the save area: 8 bytes a saved register
    uint32_t state_stride = 0;           // one thread's record
    bool parks = false;                  // has barriers or warp-wide instructions
    // Kernels that park: the registers live after each parking instruction (by its index in the
    // body), and each such register's slot in the save area.
    std::map<size_t, std::vector<std::string>> live_after_park;
    std::map<std::string, uint32_t> save_slots;
    // Kernels whose barriers split them into straight regions (barrier_regions.hpp): the
    // barriers' body indices; the block function then runs one loop over the threads per region.
    std::vector<size_t> region_barriers;
    // Registers live after a parking instruction that recomputable.hpp finds are not kept in the
    // record: the next region, or the thread's resume point, computes them again (body indices,
    // in order).
    std::map<size_t, std::vector<size_t>> recompute_after_park;
    std::vector<region_threads> region_ranges;  // per region: the threads its loop visits
    // Kernels with tensor-core instructions that park (wmma.mma, mma.sync, ldmatrix): where the
    // matrix exchange area (abi.hpp's matrix_area_bytes) lies in a thread's record; 0: none.
    uint32_t matrix_offset = 0;
    std::set<size_t> converging_back_edges;  // converging_back_edges(): they park
    // Some function of the call tree calls itself, directly or through others: the thread's local
    // memory is then the launch's call stack (launch_request::stack_bytes), and each call checks
    // that the callee's frame fits.
    bool recursive = false;
    bool uses_heap = false;       // calls malloc/free/new/delete (device_heap.hpp)
    bool device_runtime = false;  // it calls the device runtime (device_launch.hpp)
};

struct module_layout {
    std::map<std::string, uint64_t> global_offsets;  // .global variables, in their window
    std::vector<uint8_t> globals_init;
    std::map<std::string, uint64_t> const_offsets;
    std::vector<uint8_t> const_init;
    std::map<std::string, uint32_t> local_frame;  // a function's local depot bytes (incl. callees; not on a cycle)
    std::map<std::string, uint32_t> own_frame;    // its own depot: where its callees' frames start
    std::map<std::string, std::map<std::string, uint32_t>> depot_offsets;  // per function
    std::vector<kernel_layout> kernels;
};

struct layout_result {
    bool ok = false;
    std::string error;  // "line N: ..." naming the construct
    module_layout layout;
};

// Checks what the engine supports and lays the module out.
layout_result lay_out(const module& m);

// Where a module's function or .global/.const variable is for a kernel: functions in the
// function window (function_address), variables in their windows. False for another name.
bool symbol_address(const module& m, const module_layout& l, const std::string& symbol, uint64_t& address);

// The functions a call may reach: the named one, or for an indirect call every .func of the
// module whose parameters and returns it matches in number (its address picks one as it runs).
std::vector<const function*> call_targets(const module& m, const instruction& call);
// The .funcs a kernel reaches through its calls (direct and indirect), each once.
std::vector<const function*> functions_called_by(const module& m, const function& kernel);

// Instructions that park a thread (bar.sync, shfl.sync, vote.sync, ..., and convergence points).
bool parks_thread(const instruction& in);

// A warp's convergence points: volatile loads and stores of shared memory, or of generic
// addresses (which may be shared). Warp-synchronous code (a scan or a reduction's last warp
// through `volatile` shared memory, without __syncwarp) relies on the lanes of a warp running in
// step; a kernel's thread parks before each such access, and the executor lets a warp's lanes do
// one each before any does its next (executor.cpp). Those of a called .func do not park.
bool is_convergence_point(const instruction& in);

// The branches back to a loop's head (body indices) whose loop holds a convergence point: a
// thread parks there too before it jumps, as at a convergence point, so that lanes that skipped
// a step of an iteration wait at the loop's end for the lanes still in it, instead of running
// ahead into the next iteration.
std::set<size_t> converging_back_edges(const function& kernel);

// Tensor-core instructions a warp performs together (wmma.mma, mma.sync, ldmatrix): they park,
// with their operands in the thread record's matrix exchange area (matrix.hpp).
bool uses_matrix_area(const instruction& in);

// mbarrier.test_wait and try_wait: a thread whose phase has not completed parks, so that the
// threads it waits for run (they run one after another); the executor lets it go on, to try
// again, after the next pass. And spinning loads (is_spin_load): the thread parks after the load.
bool is_yield_point(const instruction& in);

// A load another thread or block may be changing under it: ld.acquire and ld.relaxed of global
// or generic memory (cooperative groups' grid.sync() spins on one, cuda::atomic_ref loads), and
// ld.volatile.global (decoupled look-back: a block spinning on another block's flag). A thread
// parks after each (in a kernel; not in a called .func), so that the threads and blocks it waits
// for get to run: its loop asks again after the next pass.
bool is_spin_load(const instruction& in);

}  // namespace cudabridge::nv::ptx

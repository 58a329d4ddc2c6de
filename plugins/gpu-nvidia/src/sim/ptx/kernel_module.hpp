// What the PTX engine library (libcudabridge_ptx_engine.so) offers the plugin that loads it: a
// loaded PTX module behind an abstract interface, and the one C entry point that loads one.
// Plain types only (no LLVM), so the plugin includes this without the engine's headers; the
// engine stays out of every process that never loads PTX (it links LLVM, about 20 ms to load).
#pragma once

#include <cudabridge/gpu.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

// Host memory kernels reach at its own address (zero-copy: registered and managed ranges, on a
// 64-bit host with unified addressing). The device model brings it over the link; the engine
// asks it for every global or generic access outside VRAM and the module's windows.
class host_memory {
public:
    // Addresses [first, end) lie at base + (address - first) for the rest of the launch.
    struct span {
        uint64_t first = 0, end = 0;
        uint8_t* base = nullptr;
    };
    virtual ~host_memory() = default;
    // Where `bytes` at `address` can be read and written (atomically too) for the rest of the
    // launch, and the span around it that lies the same way (the engine keeps one per block, so
    // the next access nearby needs no call); null when no reachable host range holds them all,
    // which faults the access.
    virtual uint8_t* reach_span(uint64_t address, uint32_t bytes, span& around) = 0;
    uint8_t* reach(uint64_t address, uint32_t bytes) {
        span ignored;
        return reach_span(address, bytes, ignored);
    }
    // Where a system-scope atomic (atom.sys) acts: by default where reach() says; a host whose
    // accesses go through a copy gives the host's own bytes, so that the atomic is atomic with
    // the CPU's atomics too, as a PCIe AtomicOp is. Null faults the access.
    virtual uint8_t* reach_for_system_atomic(uint64_t address, uint32_t bytes) { return reach(address, bytes); }
};

// The simulated VRAM as the generated code reaches it.
struct device_memory {
    uint8_t* host = nullptr;  // VRAM offset 0
    uint64_t base = 0;        // its device address
    uint64_t size = 0;
    // One byte per 64 KiB page of VRAM, nonzero where some live allocation lies (size >> 16,
    // rounded up); null: every page is mapped.
    const uint8_t* page_map = nullptr;
    host_memory* host_ranges = nullptr;  // null: kernels reach no host memory
};

struct launch_request {
    size_t kernel = 0;
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    uint32_t dynamic_shared = 0;
    std::vector<uint8_t> params;  // laid out as the kernel's .param list says (pack_arguments)
    // Where the module's variables (symbol_bytes) lie in VRAM, so that the host's copies to and
    // from them (cudaMemcpyToSymbol) and the kernels see the same bytes; 0: the module's own
    // copy, which only its kernels see.
    uint64_t symbols = 0;
    // The per-thread call stack of a recursive kernel (cudaLimitStackSize), and the device heap
    // in VRAM (device_heap.hpp; 0 bytes: none, and malloc returns NULL).
    uint64_t stack_bytes = 1024;
    uint64_t heap_address = 0;
    uint64_t heap_bytes = 0;
    // cudaLaunchCooperativeKernel: all blocks resident at once (they run in turns on one thread),
    // and %envreg1/%envreg2 name the grid's workspace for grid.sync().
    bool cooperative = false;
};

// A module-scope variable (.global or .const) in the module's block of variables.
struct module_symbol {
    uint64_t offset = 0;
    uint64_t size = 0;
};

struct launch_outcome {
    cb_status status = CB_OK;  // CB_ERR_ILLEGAL_ADDRESS for a fault, CB_ERR_INTERNAL for a trap
    std::string message;       // what failed: the kernel, the block, the address
    uint64_t executed = 0;     // instructions executed, all threads
    uint64_t bytes_moved = 0;  // global memory bytes loaded and stored in VRAM
    uint64_t host_bytes = 0;   // bytes loaded and stored in host memory (device_memory::host_ranges)
    uint64_t threads = 0;
};

// Runs fn(first, end) over [0, count) in pieces, on whatever threads the caller owns.
using block_runner = std::function<void(uint64_t count, const std::function<void(uint64_t first, uint64_t end)>& fn)>;

class kernel_module {
public:
    virtual ~kernel_module() = default;

    // -1 when the module has no kernel of that name.
    virtual int find(const std::string& name) const = 0;
    virtual std::string kernel_names() const = 0;
    virtual double compile_ms() const = 0;

    // The module's .global and .const variables as one block of device memory: its size, the
    // bytes it starts with (the variables' initializers), and where a variable lies in it (false
    // for a name the module does not define). The driver places the block in VRAM at load.
    virtual uint64_t symbol_bytes() const = 0;
    virtual std::vector<uint8_t> initial_symbols() const = 0;
    virtual bool find_symbol(const std::string& name, module_symbol& out) const = 0;

    // The parameter buffer for `args`: scalars narrowed to each .param's type when the value
    // fits, device pointers where a .u64/.b64 address is expected, CB_ARG_BYTES for structs by
    // value. CB_ERR_INVALID_ARGUMENT with a message naming the parameter otherwise.
    virtual cb_status pack_arguments(size_t kernel, const cb_kernel_arg* args, size_t count, std::vector<uint8_t>& out,
                                     std::string& error) const = 0;
    // The parameter buffer from cuLaunchKernel-style pointers, one per .param, each to a value of
    // that parameter's size (cb_kernel_launch.kernel_params). CB_ERR_INVALID_ARGUMENT when one
    // is null.
    virtual cb_status pack_parameters(size_t kernel, void* const* params, std::vector<uint8_t>& out,
                                      std::string& error) const = 0;
    // Where .param number `index` lies in the parameter buffer and its size (cuFuncGetParamInfo);
    // false past the last one.
    virtual bool param_info(size_t kernel, uint32_t index, uint64_t& offset, uint64_t& size) const = 0;
    // The kernel calls malloc/free/new/delete: its launches need the device heap.
    virtual bool uses_heap(size_t kernel) const = 0;

    // Runs every block of the grid through `run`; `abort` (may be empty) is asked between blocks.
    virtual launch_outcome launch(const launch_request& r, const device_memory& memory, const block_runner& run,
                                  const std::function<bool()>& abort) const = 0;
};

// The engine library's entry point (extern "C", so dlsym finds it by this name): a loaded module
// that the caller owns (delete it through the interface), or null with *error naming the line and
// instruction of what is refused and *status CB_ERR_INVALID_ARGUMENT (not PTX) or
// CB_ERR_UNSUPPORTED (PTX the engine refuses).
using load_function = kernel_module* (*)(const char* ptx_text, size_t size, std::string* error, cb_status* status);
inline constexpr const char* load_symbol = "cudabridge_ptx_load";
inline constexpr const char* engine_library_name = "libcudabridge_ptx_engine.so";

}  // namespace cudabridge::nv::ptx

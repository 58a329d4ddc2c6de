// A loaded PTX module, the face of the PTX engine: load (parse, check, lay out, lower, JIT),
// match a launch's arguments to a kernel's .param list, and run a launch over the simulated
// VRAM on the compute engine's threads (executor.cpp).
#pragma once

#include "sim/ptx/ast.hpp"
#include "sim/ptx/jit.hpp"
#include "sim/ptx/layout.hpp"

#include <cudabridge/gpu.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::nv::kernels {
class engine;
}

namespace cudabridge::nv::ptx {

// The simulated VRAM as the generated code reaches it.
struct device_memory {
    uint8_t* host = nullptr;  // VRAM offset 0
    uint64_t base = 0;        // its device address
    uint64_t size = 0;
};

struct launch_request {
    size_t kernel = 0;
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    uint32_t dynamic_shared = 0;
    std::vector<uint8_t> params;  // laid out as kernel_layout::params says (pack_arguments)
};

struct launch_outcome {
    cb_status status = CB_OK;
    std::string message;        // what failed: the kernel, the block, the address
    uint64_t executed = 0;      // instructions executed, all threads
    uint64_t bytes_moved = 0;   // global memory bytes loaded and stored
    uint64_t threads = 0;
    bool illegal_address = false;
};

class program {
public:
    // Null with `error` naming the line and instruction of what is refused.
    static std::shared_ptr<program> load(std::string_view ptx_text, std::string& error);

    // -1 when the module has no kernel of that name.
    int find(const std::string& name) const;
    size_t kernel_count() const { return layout_.kernels.size(); }
    const kernel_layout& kernel(size_t i) const { return layout_.kernels.at(i); }
    std::string kernel_names() const;
    double compile_ms() const { return code_->compile_ms(); }
    const std::string& target() const { return mod_.target; }

    // The parameter buffer for `args`: scalars narrowed to each .param's type when the value
    // fits, device pointers where a .u64/.b64 address is expected, CB_ARG_BYTES for structs by
    // value. CB_ERR_INVALID_ARGUMENT with a message naming the parameter otherwise.
    cb_status pack_arguments(size_t kernel, const cb_kernel_arg* args, size_t count, std::vector<uint8_t>& out,
                             std::string& error) const;

    // Runs every block; `abort` (may be empty) is asked between blocks.
    launch_outcome launch(const launch_request& r, const device_memory& memory, kernels::engine& engine,
                          const std::function<bool()>& abort) const;

private:
    program() = default;
    module mod_;
    module_layout layout_;
    std::unique_ptr<compiled_module> code_;
    mutable std::vector<uint8_t> globals_;  // the module's .global variables, as kernels leave them
};

}  // namespace cudabridge::nv::ptx

// A loaded PTX module, the face of the PTX engine: load (parse, check, lay out, lower), match a
// launch's arguments to a kernel's .param list, and run a launch over the simulated VRAM on the
// caller's threads (executor.cpp), JIT-compiling the kernel for the launch's shape the first
// time it meets it. The plugin sees it as a kernel_module.
#pragma once

#include "sim/ptx/ast.hpp"
#include "sim/ptx/jit.hpp"
#include "sim/ptx/kernel_module.hpp"
#include "sim/ptx/layout.hpp"

#include <cudabridge/gpu.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::nv::ptx {

struct device_launch_queue;

class program final : public kernel_module {
public:
    // Null with `error` naming the line and instruction of what is refused.
    // `status` (optional) tells them apart: CB_ERR_INVALID_ARGUMENT for text that is not PTX,
    // CB_ERR_UNSUPPORTED for PTX the engine refuses.
    static std::unique_ptr<program> load(std::string_view ptx_text, std::string& error, cb_status* status = nullptr);

    // -1 when the module has no kernel of that name.
    int find(const std::string& name) const override;
    size_t kernel_count() const { return layout_.kernels.size(); }
    const kernel_layout& kernel(size_t i) const { return layout_.kernels.at(i); }
    std::string kernel_names() const override;
    // Lowering at load plus every compile so far.
    double compile_ms() const override;
    uint64_t symbol_bytes() const override { return const_base_ + layout_.const_init.size(); }
    std::vector<uint8_t> initial_symbols() const override;
    bool find_symbol(const std::string& name, module_symbol& out) const override;
    const std::string& target() const { return mod_.target; }

    cb_status pack_arguments(size_t kernel, const cb_kernel_arg* args, size_t count, std::vector<uint8_t>& out,
                             std::string& error) const override;
    bool param_info(size_t kernel, uint32_t index, uint64_t& offset, uint64_t& size) const override;
    bool uses_heap(size_t kernel) const override {
        return kernel < layout_.kernels.size() && layout_.kernels[kernel].uses_heap;
    }
    cb_status pack_parameters(size_t kernel, void* const* params, std::vector<uint8_t>& out,
                              std::string& error) const override;
    launch_outcome launch(const launch_request& r, const device_memory& memory, const block_runner& run,
                          const std::function<bool()>& abort) const override;

    // The kernel's code for a launch shape: compiled the first time, then kept. A kernel
    // launched with more than `shapes_per_kernel` shapes runs further ones in one compile that
    // reads the shape at run time, so sweeping block sizes cannot compile without end. Null with
    // `error` when LLVM fails.
    static constexpr size_t shapes_per_kernel = 8;
    block_shape launch_shape(size_t kernel, const uint32_t block[3], uint32_t dynamic_shared) const;
    block_function code_for(size_t kernel, const block_shape& shape, std::string& error) const;
    size_t compiled_count() const;  // compiles so far (per kernel and shape, plus the any-shape ones)
    // code_for on a thread of its own, asking `abort` while it compiles (the launch is moving).
    block_function compile_moving(size_t kernel, const block_shape& shape, std::string& why,
                                  const std::function<bool()>& abort) const;

private:
    program() = default;
    launch_outcome launch_nested(const launch_request& r, const device_memory& memory, const block_runner& run,
                                 const std::function<bool()>& abort, uint32_t depth) const;
    launch_outcome run_grid(const launch_request& r, const device_memory& memory, const block_runner& run,
                            const std::function<bool()>& abort, device_launch_queue& queue) const;
    module mod_;
    module_layout layout_;
    struct compiled_entry {
        size_t kernel;
        bool any_shape;
        block_shape shape;
        std::unique_ptr<compiled_kernel> code;
    };
    mutable std::mutex compile_mutex_;  // launches of one module may come from several threads
    mutable std::vector<compiled_entry> compiled_;
    double lowering_ms_ = 0;
    uint64_t const_base_ = 0;
    std::vector<uint32_t>
        kernel_param_bytes_;  // per kernel: what a launch from a kernel copies  // the .const variables follow the .global ones in the block of variables
    // That block when a launch gives no VRAM address for it, as kernels leave it.
    mutable std::vector<uint8_t> own_symbols_;
};

}  // namespace cudabridge::nv::ptx

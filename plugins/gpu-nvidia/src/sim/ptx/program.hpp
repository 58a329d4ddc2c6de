// A loaded PTX module, the face of the PTX engine: load (parse, check, lay out, lower, JIT),
// match a launch's arguments to a kernel's .param list, and run a launch over the simulated
// VRAM on the caller's threads (executor.cpp). The plugin sees it as a kernel_module.
#pragma once

#include "sim/ptx/ast.hpp"
#include "sim/ptx/jit.hpp"
#include "sim/ptx/kernel_module.hpp"
#include "sim/ptx/layout.hpp"

#include <cudabridge/gpu.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::nv::ptx {

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
    double compile_ms() const override { return code_->compile_ms(); }
    uint64_t symbol_bytes() const override { return const_base_ + layout_.const_init.size(); }
    std::vector<uint8_t> initial_symbols() const override;
    bool find_symbol(const std::string& name, module_symbol& out) const override;
    const std::string& target() const { return mod_.target; }

    cb_status pack_arguments(size_t kernel, const cb_kernel_arg* args, size_t count, std::vector<uint8_t>& out,
                             std::string& error) const override;
    cb_status pack_parameters(size_t kernel, void* const* params, std::vector<uint8_t>& out,
                              std::string& error) const override;
    launch_outcome launch(const launch_request& r, const device_memory& memory, const block_runner& run,
                          const std::function<bool()>& abort) const override;

private:
    program() = default;
    module mod_;
    module_layout layout_;
    std::unique_ptr<compiled_module> code_;
    uint64_t const_base_ = 0;  // the .const variables follow the .global ones in the block of variables
    // That block when a launch gives no VRAM address for it, as kernels leave it.
    mutable std::vector<uint8_t> own_symbols_;
};

}  // namespace cudabridge::nv::ptx

// Compiles a lowered PTX module to host code with LLVM's ORC LLJIT (optimized at -O2 for this
// CPU) and hands out each kernel's block function. One JIT per loaded module: unloading the
// module frees its code. Compiling happens once, at module load; launches compile nothing.
#pragma once

#include "sim/ptx/abi.hpp"
#include "sim/ptx/ast.hpp"
#include "sim/ptx/layout.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

using block_function = void (*)(block_env* env, uint8_t* states, uint64_t stride, uint32_t threads);

class compiled_module {
public:
    // Null with `error` ("line N: ..." for what cannot be lowered).
    static std::unique_ptr<compiled_module> compile(const module& m, const module_layout& layout, std::string& error);
    ~compiled_module();
    compiled_module(const compiled_module&) = delete;
    compiled_module& operator=(const compiled_module&) = delete;

    block_function kernel(size_t index) const { return kernels_.at(index); }
    double compile_ms() const { return compile_ms_; }

private:
    compiled_module();
    struct jit;
    std::unique_ptr<jit> jit_;
    std::vector<block_function> kernels_;
    double compile_ms_ = 0;
};

}  // namespace cudabridge::nv::ptx

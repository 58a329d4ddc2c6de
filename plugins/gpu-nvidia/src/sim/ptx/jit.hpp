// Compiles one kernel of a PTX module for one launch shape (lowering.hpp's block_shape) to host
// code with LLVM's ORC LLJIT, optimized at -O2 for this CPU. The program compiles a kernel the
// first time it is launched with a shape and keeps the result (program.hpp): a second launch
// with that shape compiles nothing, and unloading the module frees the code. The machine code
// also goes to a disk cache (jit_cache.hpp), so that a later run loads it instead of optimizing
// and compiling again. At load, every kernel is only lowered, which refuses what no launch could
// run.
#pragma once

#include "sim/ptx/abi.hpp"
#include "sim/ptx/ast.hpp"
#include "sim/ptx/layout.hpp"
#include "sim/ptx/lowering.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace cudabridge::nv::ptx {

using block_function = void (*)(block_env* env, uint8_t* states, uint64_t stride, uint32_t threads);

// Lowers every kernel without compiling; false with `error` ("line N: ...") when one cannot be.
bool check_lowering(const module& m, const module_layout& layout, std::string& error);

class compiled_kernel {
public:
    // For `shape`, or for any shape (read from block_env) when null. Null with `error` when
    // LLVM cannot build the code.
    static std::unique_ptr<compiled_kernel> compile(const module& m, const module_layout& layout, size_t kernel,
                                                    const block_shape* shape, std::string& error);
    ~compiled_kernel();
    compiled_kernel(const compiled_kernel&) = delete;
    compiled_kernel& operator=(const compiled_kernel&) = delete;

    block_function function() const { return function_; }
    double compile_ms() const { return compile_ms_; }
    // The machine code came from the disk cache (jit_cache.hpp): nothing was optimized or
    // compiled but the kernel's lowering.
    bool from_cache() const { return from_cache_; }

private:
    compiled_kernel();
    struct jit;
    std::unique_ptr<jit> jit_;
    block_function function_ = nullptr;
    double compile_ms_ = 0;
    bool from_cache_ = false;
};

}  // namespace cudabridge::nv::ptx

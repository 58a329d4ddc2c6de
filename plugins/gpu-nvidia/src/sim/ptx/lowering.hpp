// Lowers a laid-out PTX module to LLVM IR: one block function per kernel (abi.hpp), with every
// .func it calls as an LLVM function of that kernel. The only header of the engine that names
// LLVM types, and only by declaration.
#pragma once

#include "sim/ptx/ast.hpp"
#include "sim/ptx/layout.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace cudabridge::nv::ptx {

// The block function's symbol for kernel `index` of the layout.
std::string block_function_name(size_t index);

// A launch's block shape and shared window. Code lowered for one reads %ntid and the shared
// memory's size as constants instead of from block_env: the loops over a block's threads get
// known trip counts, so LLVM drops range checks it can prove and vectorizes more.
struct block_shape {
    uint32_t ntid[3] = {1, 1, 1};
    uint64_t shared_size = 0;  // static and dynamic shared bytes

    bool operator==(const block_shape&) const = default;
};

// Every kernel, reading the shape from block_env; or kernel `only` alone, lowered for `shape`
// (null: read from block_env too). Null with `error` ("line N: ...") when an instruction cannot
// be lowered: the same either way, so lowering every kernel at load refuses what no launch could
// run.
std::unique_ptr<llvm::Module> lower_module(llvm::LLVMContext& context, const module& m, const module_layout& layout,
                                           std::string& error);
std::unique_ptr<llvm::Module> lower_kernel(llvm::LLVMContext& context, const module& m, const module_layout& layout,
                                           size_t only, const block_shape* shape, std::string& error);

}  // namespace cudabridge::nv::ptx

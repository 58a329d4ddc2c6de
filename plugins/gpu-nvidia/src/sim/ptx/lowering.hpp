// Lowers a laid-out PTX module to LLVM IR: one block function per kernel (abi.hpp), with every
// .func it calls as an LLVM function of that kernel. The only header of the engine that names
// LLVM types, and only by declaration.
#pragma once

#include "sim/ptx/ast.hpp"
#include "sim/ptx/layout.hpp"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace cudabridge::nv::ptx {

// The block function's symbol for kernel `index` of the layout.
std::string block_function_name(size_t index);

// Null with `error` ("line N: ...") when an instruction cannot be lowered.
std::unique_ptr<llvm::Module> lower_module(llvm::LLVMContext& context, const module& m, const module_layout& layout,
                                           std::string& error);

}  // namespace cudabridge::nv::ptx

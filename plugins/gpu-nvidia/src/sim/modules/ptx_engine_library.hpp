// The PTX engine, loaded on first use: libcudabridge_ptx_engine.so (sim/ptx/) is dlopened the
// first time a process loads a PTX module, so the CLI's commands and every process that never
// runs a user kernel never load LLVM. Where it is looked for, first found wins:
//   $CUDABRIDGE_PTX_ENGINE                       a path to the library
//   <this plugin's folder>/../ptx/               the installed and build-tree layout
//   <this program's folder>/../lib/cudabridge/ptx/  programs that link the family statically
// Loaded once per process and never unloaded (compiled kernels live in its JIT).
#pragma once

#include "sim/ptx/kernel_module.hpp"

#include <cudabridge/abi.h>

#include <memory>
#include <string>
#include <string_view>

namespace cudabridge::nv {

// The module, or CB_ERR_INVALID_ARGUMENT (malformed PTX), CB_ERR_UNSUPPORTED (an instruction the
// engine refuses, or no engine library on this machine) with `error` saying which.
cb_status load_ptx_module(std::string_view ptx_text, std::shared_ptr<const ptx::kernel_module>& out,
                          std::string& error);

}  // namespace cudabridge::nv

// A loaded CB_MODULE_HOST_KERNELS image as plain data: the kernels' names and functions copied out
// of the caller's cb_host_kernel_module (sdk host_kernels.h), after checking it, so a module never
// points into the caller's table once loaded (only the functions themselves must stay loaded).
#pragma once

#include "common/errors/fail.hpp"

#include <cudabridge/host_kernels.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::nv {

struct host_kernel_entry {
    std::string name;
    cb_host_kernel_fn fn = nullptr;
};

struct host_kernel_module {
    std::vector<host_kernel_entry> kernels;

    // The index of the kernel named `name`; -1 when the module has none.
    int find(const std::string& name) const;
};

// Checks `image` (a cb_host_kernel_module, `size` its struct_size): the size covers the fields
// this build reads, a non-empty table, every name non-empty and unique, every function non-null.
// CB_ERR_INVALID_ARGUMENT with what is wrong otherwise.
cb_status parse_host_kernel_module(const void* image, size_t size, host_kernel_module& out, std::string& error);

}  // namespace cudabridge::nv

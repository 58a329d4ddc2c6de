// User code from Python (cb.RawModule, cb.RawKernel, cb.ElementwiseKernel): modules loaded from
// CUDA source, PTX, CUBIN or fatbin images through the host runtime, and their kernels launched
// with a grid, a block and plain kernel arguments.
#pragma once

#include <pybind11/pybind11.h>

namespace cudabridge::python {

// Adds to the module:
//   module_load(image: bytes, format: int) -> int   (cb_module_format; the runtime's message on failure)
//   module_unload(handle)
//   module_launch(handle, name, grid, block, args, shared_mem, stream)
// where grid and block are (x, y, z) and each argument is one of ("p", Buffer, byte offset),
// ("i", int) (INT64), ("u", int) (UINT64), ("f", float) (FLOAT64) or ("b", bytes) (the
// parameter's raw bytes, their size checked against it).
void add_user_modules(pybind11::module_& m);

}  // namespace cudabridge::python

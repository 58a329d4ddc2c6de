// DLPack (https://dmlc.github.io/dlpack/latest/): the capsule a device array's __dlpack__ returns.
#pragma once

#include <pybind11/pybind11.h>

namespace cudabridge::python {

// Adds to the module:
//   dlpack_capsule(owner, address, shape, strides, type_code, bits, device_type, device_id)
// a "dltensor" PyCapsule of a DLManagedTensor over `address` (shape and strides in elements),
// which holds a reference to `owner` (what keeps the memory alive) until the consumer calls the
// deleter, or until the capsule goes away unconsumed.
void add_dlpack(pybind11::module_& m);

}  // namespace cudabridge::python

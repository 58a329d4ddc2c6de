// Kernel launches from Python: tensor operands made once per array, and the two ways to launch
// a built-in kernel (any arguments; or a new contiguous output, the operators' common case).
//
// A tensor operand is a bytes object holding a tensor_record: immutable, as an array's
// descriptor is, and made and dropped for the price of a small string (the array that holds it
// also holds its Buffer, which keeps the memory alive).
#pragma once

#include "device_buffer.hpp"

#include <pybind11/pybind11.h>

#include <cudabridge/builtin_kernels.h>

#include <cstdint>
#include <string>

namespace cudabridge::python {

struct tensor_record {
    cb_tensor_desc desc;
    uint64_t generation;  // the runtime its memory belongs to
    int32_t device;       // the device its memory is on
};

// The operand for `shape` and `strides` (in elements) of `buffer`'s memory from byte `offset`.
pybind11::bytes make_tensor(pybind11::handle buffer, uint64_t offset, int dtype, const pybind11::tuple& shape,
                            const pybind11::tuple& strides);

// args: tensor operands, ints (INT64), floats (FLOAT64) or ("u", n) (UINT64).
void launch(const std::string& name, int dtype, const pybind11::list& args, uint64_t stream);

// Adds `launch_new(name, dtype, itemsize, inputs, tail, shape, stream) -> (Buffer, operand)` to
// the module: a kernel whose output is a new contiguous array of `shape`, from the pool; its
// arguments are the `inputs` operands, the output, then the `tail` scalars (int or float).
// Registered as a plain METH_FASTCALL function: it runs for every operator, and pybind11's
// general dispatch cost a third of it.
void add_launch_new(pybind11::module_& m);

}  // namespace cudabridge::python

// cudabridge._core.Buffer: device memory owned by a Python object, taken from the module's pool
// or allocated from the runtime, and given back to the pool when the last array viewing it goes
// away (freed, after the work queued on it as cudaFree does, when the pool is full).
//
// A plain CPython type rather than a pybind11 class: every operator makes one, and pybind11's
// instance registry cost more than the kernel launch.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>

namespace cudabridge::python {

struct device_buffer {
    PyObject_HEAD void* ptr;
    size_t nbytes;
    int device;
    uint64_t stream;      // where the memory's users queue their work (the pool's key)
    uint64_t generation;  // the runtime it came from
};

// Adds the type to the module as `Buffer(nbytes, stream=0)`.
void add_buffer_type(pybind11::module_& m);

// A new Buffer of `nbytes` for work on `stream` (a new reference; throws on failure).
PyObject* new_buffer(size_t nbytes, uint64_t stream);
// `o` as a Buffer; throws TypeError when it is not one.
device_buffer& buffer_of(pybind11::handle o);
// Throws the module's Error when the buffer's runtime was shut down.
void check_alive(const device_buffer& b);
inline uint64_t address_of(const device_buffer& b) { return reinterpret_cast<uint64_t>(b.ptr); }

}  // namespace cudabridge::python

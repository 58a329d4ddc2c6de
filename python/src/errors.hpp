// Errors from the runtime reach Python as the classes cudabridge.errors defines: the module
// registers them here at import, keyed by cbError_t; C++ throws runtime_failure.
#pragma once

#include <pybind11/pybind11.h>

#include <cudabridge/host/runtime.hpp>

namespace cudabridge::python {

// A failed runtime call: the host's runtime_error (a cbError_t and the message).
using runtime_failure = host::runtime_error;

// errors: {code: class, ..., None: the base class}.
void register_error_classes(const pybind11::dict& errors);
void install_error_translator();
// Sets the Python exception (of the registered class for its code) for a failed runtime call.
void set_python_error(const runtime_failure& e);

}  // namespace cudabridge::python

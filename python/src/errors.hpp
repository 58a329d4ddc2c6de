// Errors from the runtime reach Python as the classes cudabridge.errors defines: the module
// registers them here at import, keyed by cbError_t; C++ throws runtime_failure.
#pragma once

#include <pybind11/pybind11.h>

#include <cudabridge/host/runtime.hpp>

#include <exception>

namespace cudabridge::python {

// A failed runtime call: the host's runtime_error (a cbError_t and the message).
using runtime_failure = host::runtime_error;

// errors: {code: class, ..., None: the base class}.
void register_error_classes(const pybind11::dict& errors);
void install_error_translator();
// Sets the Python exception (of the registered class for its code) for a failed runtime call.
void set_python_error(const runtime_failure& e);

// For functions registered with the C API directly (not through pybind11): runs `body`, which
// returns a new reference, and turns what it throws into the Python exception; null then.
template <class Body>
PyObject* with_python_errors(Body&& body) noexcept {
    try {
        return body();
    } catch (pybind11::error_already_set& e) {
        e.restore();
    } catch (const runtime_failure& e) {
        set_python_error(e);
    } catch (const pybind11::builtin_exception& e) {
        e.set_error();
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    return nullptr;
}

}  // namespace cudabridge::python

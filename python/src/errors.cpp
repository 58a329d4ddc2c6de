#include "errors.hpp"

namespace py = pybind11;

namespace cudabridge::python {

namespace {
// Kept alive for the interpreter's lifetime (module state, set once at import).
py::dict* error_classes = nullptr;
}  // namespace

void register_error_classes(const py::dict& errors) {
    if (!error_classes) error_classes = new py::dict();
    *error_classes = errors;
}

void set_python_error(const runtime_failure& e) {
    py::object cls = py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
    if (error_classes) {
        const py::int_ code(static_cast<int>(e.code()));
        if (error_classes->contains(code))
            cls = (*error_classes)[code];
        else if (error_classes->contains(py::none()))
            cls = (*error_classes)[py::none()];
    }
    // The class takes (message, code). A message may quote the user's own bytes (a PTX name that
    // is not UTF-8): they are replaced, never allowed to turn the error into a UnicodeDecodeError.
    const std::string text = e.what();
    const auto message = py::reinterpret_steal<py::object>(
        PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
    if (!message) return;  // out of memory: Python's own error stands
    PyErr_SetObject(cls.ptr(), py::make_tuple(message, static_cast<int>(e.code())).ptr());
}

void install_error_translator() {
    // By value: pybind11's translator type is void (*)(std::exception_ptr).
    py::register_exception_translator([](std::exception_ptr p) {  // NOLINT(performance-unnecessary-value-param)
        try {
            if (p) std::rethrow_exception(p);
        } catch (const runtime_failure& e) {
            set_python_error(e);
        }
    });
}

}  // namespace cudabridge::python

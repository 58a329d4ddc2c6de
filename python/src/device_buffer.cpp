#include "device_buffer.hpp"

#include "errors.hpp"
#include "runtime_handle.hpp"

#include <exception>

namespace py = pybind11;

namespace cudabridge::python {

namespace {

PyTypeObject* buffer_type = nullptr;

void buffer_dealloc(PyObject* self) {
    auto* b = reinterpret_cast<device_buffer*>(self);
    auto& s = slot();
    // Memory of a runtime that was shut down went with it.
    if (alive(b->generation, b->device) && b->ptr && !s.pool.keep(b->device, b->stream, b->nbytes, b->ptr)) {
        try {
            free_device_memory(b->device, b->ptr);
        } catch (const std::exception&) {  // a lost device: its memory is gone anyway
        }
    }
    PyTypeObject* type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type);  // instances of a heap type hold a reference to it
}

PyObject* buffer_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
    static const char* keywords[] = {"nbytes", "stream", nullptr};
    Py_ssize_t nbytes = 0;
    unsigned long long stream = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n|K", const_cast<char**>(keywords), &nbytes, &stream))
        return nullptr;
    if (nbytes < 0) {
        PyErr_SetString(PyExc_ValueError, "Buffer: nbytes must not be negative");
        return nullptr;
    }
    return with_python_errors([&] { return new_buffer(static_cast<size_t>(nbytes), stream); });
}

PyObject* get_ptr(PyObject* self, void*) {
    return PyLong_FromUnsignedLongLong(address_of(*reinterpret_cast<device_buffer*>(self)));
}
PyObject* get_nbytes(PyObject* self, void*) {
    return PyLong_FromSize_t(reinterpret_cast<device_buffer*>(self)->nbytes);
}
PyObject* get_device(PyObject* self, void*) { return PyLong_FromLong(reinterpret_cast<device_buffer*>(self)->device); }

PyGetSetDef buffer_getset[] = {
    {"ptr", &get_ptr, nullptr, "the device address", nullptr},
    {"nbytes", &get_nbytes, nullptr, "the size in bytes", nullptr},
    {"device", &get_device, nullptr, "the device index", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

PyObject* new_buffer(size_t nbytes, uint64_t stream) {
    auto& s = slot();
    auto& rt = current();
    int device = 0;
    check(rt.get_device(&device));
    void* ptr = s.pool.take(device, stream, nbytes);
    if (!ptr) {
        cbError_t e;
        {
            py::gil_scoped_release nogil;
            e = rt.malloc(&ptr, nbytes ? nbytes : 1);  // a zero-byte array still gets its own address
        }
        check(e);
    }
    PyObject* o = buffer_type->tp_alloc(buffer_type, 0);
    if (!o) {
        if (!s.pool.keep(device, stream, nbytes, ptr)) free_device_memory(device, ptr);
        throw py::error_already_set();
    }
    auto* b = reinterpret_cast<device_buffer*>(o);
    b->ptr = ptr;
    b->nbytes = nbytes;
    b->device = device;
    b->stream = stream;
    b->generation = s.generation;
    return o;
}

device_buffer& buffer_of(py::handle o) {
    if (!o || Py_TYPE(o.ptr()) != buffer_type) throw py::type_error("expected a cudabridge._core.Buffer");
    return *reinterpret_cast<device_buffer*>(o.ptr());
}

void check_alive(const device_buffer& b) { check_generation(b.generation, b.device); }

void add_buffer_type(py::module_& m) {
    static PyType_Slot slots[] = {
        {Py_tp_new, reinterpret_cast<void*>(&buffer_new)},
        {Py_tp_dealloc, reinterpret_cast<void*>(&buffer_dealloc)},
        {Py_tp_getset, buffer_getset},
        {Py_tp_doc, const_cast<char*>("Buffer(nbytes, stream=0): device memory, from the pool when it holds a "
                                      "block of that size")},
        {0, nullptr},
    };
    static PyType_Spec spec = {"cudabridge._core.Buffer", static_cast<int>(sizeof(device_buffer)), 0,
                               Py_TPFLAGS_DEFAULT, slots};
    auto type = py::reinterpret_steal<py::object>(PyType_FromSpec(&spec));
    if (!type) throw py::error_already_set();
    buffer_type = reinterpret_cast<PyTypeObject*>(type.ptr());
    Py_INCREF(type.ptr());  // kept for the interpreter's lifetime: buffer_of compares against it
    m.add_object("Buffer", type);
}

}  // namespace cudabridge::python

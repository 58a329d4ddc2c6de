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
    if (s.rt && s.generation == b->generation && b->ptr &&
        !s.pool.keep(b->device, b->stream, b->nbytes, b->ptr)) {
        try {
            free_device_memory(b->device, b->ptr);
        } catch (const std::exception&) {  // a lost device: its memory is gone anyway
        }
    }
    Py_TYPE(self)->tp_free(self);
}

PyObject* buffer_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
    static const char* keywords[] = {"nbytes", "stream", nullptr};
    unsigned long long nbytes = 0, stream = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "K|K", const_cast<char**>(keywords), &nbytes, &stream))
        return nullptr;
    try {
        return new_buffer(static_cast<size_t>(nbytes), stream);
    } catch (const runtime_failure& e) {
        set_python_error(e);
    } catch (py::error_already_set& e) {
        e.restore();
    }
    return nullptr;
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

void check_alive(const device_buffer& b) { check_generation(b.generation); }

void add_buffer_type(py::module_& m) {
    static PyTypeObject type = [] {
        PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
        t.tp_name = "cudabridge._core.Buffer";
        t.tp_basicsize = sizeof(device_buffer);
        t.tp_flags = Py_TPFLAGS_DEFAULT;
        t.tp_doc = "Buffer(nbytes, stream=0): device memory, from the pool when it holds a block of that size";
        t.tp_new = &buffer_new;
        t.tp_dealloc = &buffer_dealloc;
        t.tp_getset = buffer_getset;
        return t;
    }();
    if (PyType_Ready(&type) < 0) throw py::error_already_set();
    buffer_type = &type;
    m.add_object("Buffer", py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&type)));
}

}  // namespace cudabridge::python

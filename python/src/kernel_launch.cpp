#include "kernel_launch.hpp"

#include "errors.hpp"
#include "runtime_handle.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <iterator>
#include <memory>
#include <vector>

namespace py = pybind11;

namespace cudabridge::python {

namespace {

py::bytes record_bytes(const cb_tensor_desc& desc, uint64_t generation, int device) {
    const tensor_record r{desc, generation, device};
    return py::bytes(reinterpret_cast<const char*>(&r), sizeof r);
}

int current_device(host::runtime& rt) {
    int device = 0;
    check(rt.get_device(&device));
    return device;
}

// The descriptor of operand `o`, checked to belong to the live runtime and to the device the
// operation runs on: arrays of two devices never meet in one kernel (no peer access is modeled).
cb_tensor_desc operand_of(PyObject* o, int device) {
    if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) != static_cast<Py_ssize_t>(sizeof(tensor_record)))
        throw py::type_error("a tensor operand must come from cudabridge._core.tensor");
    tensor_record r;
    std::memcpy(&r, PyBytes_AS_STRING(o), sizeof r);
    check_generation(r.generation, r.device);
    if (r.device != device)
        throw py::value_error("an array on device " + std::to_string(r.device) + " in an operation on device " +
                              std::to_string(device) + " (the current one): copy it over with x.to_device(" +
                              std::to_string(device) + "), or run the operation under `with cudabridge.Device(" +
                              std::to_string(r.device) + "):`");
    return r.desc;
}

}  // namespace

py::bytes make_tensor(py::handle buffer, uint64_t offset, int dtype, const py::tuple& shape, const py::tuple& strides) {
    const device_buffer& b = buffer_of(buffer);
    check_alive(b);
    if (shape.size() > CB_TENSOR_MAX_DIMS || strides.size() != shape.size())
        throw runtime_failure(cbErrorInvalidValue, "at most 8 dimensions, one stride per dimension");
    cb_tensor_desc d{};
    d.device_ptr = address_of(b) + offset;
    d.dtype = dtype;
    d.ndim = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) {
        d.shape[i] = shape[i].cast<int64_t>();
        d.strides[i] = strides[i].cast<int64_t>();
    }
    return record_bytes(d, b.generation, b.device);
}

// args: a tensor operand, an int (INT64), a float (FLOAT64) or ("u", n) (UINT64).
void launch(const std::string& name, int dtype, const py::list& args, uint64_t stream) {
    auto& rt = current();
    const int device = current_device(rt);
    std::vector<cb_tensor_desc> tensors;
    tensors.reserve(args.size());  // never reallocated: the arguments point into it
    std::vector<cbKernelArg> out;
    out.reserve(args.size());
    for (const auto& a : args) {
        if (PyBytes_Check(a.ptr())) {
            tensors.push_back(operand_of(a.ptr(), device));
            out.push_back(cbArgTensor(&tensors.back()));
        } else if (py::isinstance<py::tuple>(a) && py::len(a) == 2) {
            out.push_back(cbArgUInt(a.cast<py::tuple>()[1].cast<uint64_t>()));
        } else if (py::isinstance<py::bool_>(a) || py::isinstance<py::int_>(a)) {
            out.push_back(cbArgInt(a.cast<int64_t>()));
        } else if (py::isinstance<py::float_>(a)) {
            out.push_back(cbArgDouble(a.cast<double>()));
        } else {
            throw runtime_failure(cbErrorInvalidValue, "a kernel argument must be a tensor, an int or a float");
        }
    }
    py::gil_scoped_release nogil;
    check(rt.launch_builtin(name.c_str(), static_cast<cb_dtype>(dtype), out.data(), out.size(), stream_of(stream)));
}

namespace {

int64_t int_of(PyObject* o, const char* what) {
    const long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (v < 0) throw py::value_error(std::string("launch_new: negative ") + what);
    return v;
}

// C order strides, in elements, of a contiguous `shape`; the element count.
int64_t contiguous(cb_tensor_desc& d, PyObject* shape) {
    if (!PyTuple_Check(shape)) throw py::type_error("launch_new: the shape must be a tuple");
    const Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    if (ndim > CB_TENSOR_MAX_DIMS) throw runtime_failure(cbErrorInvalidValue, "at most 8 dimensions");
    d.ndim = static_cast<int32_t>(ndim);
    int64_t count = 1;
    for (Py_ssize_t i = 0; i < ndim; ++i) {
        d.shape[i] = int_of(PyTuple_GET_ITEM(shape, i), "dimension");
        count *= d.shape[i];
    }
    for (Py_ssize_t i = ndim, step = 1; i-- > 0;) {
        d.strides[i] = step;
        step *= std::max<int64_t>(d.shape[i], 1);
    }
    return count;
}

PyObject* launch_new(PyObject* const* a) {
    Py_ssize_t name_size = 0;
    const char* name = PyUnicode_AsUTF8AndSize(a[0], &name_size);
    if (!name) throw py::error_already_set();
    const auto dtype = static_cast<cb_dtype>(int_of(a[1], "dtype"));
    const auto itemsize = static_cast<size_t>(int_of(a[2], "itemsize"));
    PyObject* inputs = a[3];
    PyObject* tail = a[4];
    const uint64_t stream = PyLong_AsUnsignedLongLong(a[6]);
    if (PyErr_Occurred()) throw py::error_already_set();
    if (!PyTuple_Check(inputs) || !PyTuple_Check(tail)) throw py::type_error("launch_new: inputs and tail are tuples");

    cb_tensor_desc tensors[4];  // the built-ins take at most three tensors and two scalars
    cbKernelArg args[8];
    const auto n_in = static_cast<size_t>(PyTuple_GET_SIZE(inputs));
    const auto n_tail = static_cast<size_t>(PyTuple_GET_SIZE(tail));
    if (n_in + 1 > std::size(tensors) || n_in + 1 + n_tail > std::size(args))
        throw runtime_failure(cbErrorInvalidValue, "too many kernel arguments");
    auto& rt = current();
    const int device = current_device(rt);
    size_t n = 0;
    for (size_t i = 0; i < n_in; ++i) {
        tensors[i] = operand_of(PyTuple_GET_ITEM(inputs, i), device);
        args[n++] = cbArgTensor(&tensors[i]);
    }
    cb_tensor_desc& out = tensors[n_in];
    out = cb_tensor_desc{};
    out.dtype = dtype;
    const int64_t count = contiguous(out, a[5]);
    py::object buffer = py::reinterpret_steal<py::object>(new_buffer(static_cast<size_t>(count) * itemsize, stream));
    const device_buffer& memory = buffer_of(buffer);
    out.device_ptr = address_of(memory);
    args[n++] = cbArgTensor(&out);
    for (size_t i = 0; i < n_tail; ++i) {
        PyObject* v = PyTuple_GET_ITEM(tail, i);
        if (PyFloat_Check(v)) {
            args[n++] = cbArgDouble(PyFloat_AS_DOUBLE(v));
        } else {
            const long long x = PyLong_AsLongLong(v);
            if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
            args[n++] = cbArgInt(x);
        }
    }
    {
        py::gil_scoped_release nogil;
        check(rt.launch_builtin(name, dtype, args, n, stream_of(stream)));
    }
    return py::make_tuple(std::move(buffer), record_bytes(out, memory.generation, memory.device)).release().ptr();
}

PyObject* launch_new_entry(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "launch_new(name, dtype, itemsize, inputs, tail, shape, stream)");
        return nullptr;
    }
    return with_python_errors([&] { return launch_new(args); });
}

PyMethodDef launch_new_def = {
    "launch_new", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&launch_new_entry)), METH_FASTCALL,
    "launch_new(name, dtype, itemsize, inputs, tail, shape, stream) -> (Buffer, operand)"};

}  // namespace

void add_launch_new(py::module_& m) {
    py::object f = py::reinterpret_steal<py::object>(PyCFunction_NewEx(&launch_new_def, nullptr, m.ptr()));
    if (!f) throw py::error_already_set();
    m.add_object("launch_new", f);
}

}  // namespace cudabridge::python

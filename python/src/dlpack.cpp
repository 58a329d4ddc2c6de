#include "dlpack.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

namespace py = pybind11;

namespace cudabridge::python {

namespace {

// DLPack's ABI (dlpack.h, version 0.8; the layout every consumer reads), spelled out here rather
// than taken from a header the build may not have.
struct DLDevice {
    int32_t device_type;  // kDLCPU = 1, kDLCUDA = 2
    int32_t device_id;
};
struct DLDataType {
    uint8_t code;  // kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6
    uint8_t bits;
    uint16_t lanes;
};
struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;  // in elements
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor* self);
};

struct export_context {
    DLManagedTensor tensor{};
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    PyObject* owner = nullptr;  // a strong reference
};

// Called by the consumer (any thread, maybe without the GIL) or by the capsule's destructor.
void delete_tensor(DLManagedTensor* self) {
    if (!self) return;
    auto* ctx = static_cast<export_context*>(self->manager_ctx);
    if (Py_IsInitialized()) {
        const PyGILState_STATE gil = PyGILState_Ensure();
        Py_XDECREF(ctx->owner);
        PyGILState_Release(gil);
    }
    delete ctx;
}

// The capsule was never consumed (still named "dltensor"): it owns the tensor.
void capsule_destructor(PyObject* capsule) {
    if (!PyCapsule_IsValid(capsule, "dltensor")) return;  // "used_dltensor": the consumer owns it
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (t && t->deleter) t->deleter(t);
}

py::capsule make_capsule(const py::object& owner, uint64_t address, const std::vector<int64_t>& shape,
                         const std::vector<int64_t>& strides, int type_code, int bits, int device_type, int device_id) {
    if (shape.size() != strides.size()) throw py::value_error("dlpack_capsule: one stride per dimension");
    if (bits <= 0 || bits > 255 || bits % 8 != 0)
        throw py::value_error("dlpack_capsule: bits must be 8, 16, 32, 64 or 128");
    auto* ctx = new export_context();
    ctx->shape = shape;
    ctx->strides = strides;
    ctx->owner = owner.inc_ref().ptr();
    DLTensor& t = ctx->tensor.dl_tensor;
    t.data = reinterpret_cast<void*>(address);
    t.device = {device_type, device_id};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = {static_cast<uint8_t>(type_code), static_cast<uint8_t>(bits), 1};
    t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
    t.strides = ctx->strides.empty() ? nullptr : ctx->strides.data();
    t.byte_offset = 0;
    ctx->tensor.manager_ctx = ctx;
    ctx->tensor.deleter = &delete_tensor;
    PyObject* capsule = PyCapsule_New(&ctx->tensor, "dltensor", &capsule_destructor);
    if (!capsule) {
        delete_tensor(&ctx->tensor);
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::capsule>(capsule);
}

}  // namespace

void add_dlpack(py::module_& m) {
    m.def("dlpack_capsule", &make_capsule, py::arg("owner"), py::arg("address"), py::arg("shape"), py::arg("strides"),
          py::arg("type_code"), py::arg("bits"), py::arg("device_type"), py::arg("device_id"));
}

}  // namespace cudabridge::python

#include "user_modules.hpp"

#include "device_buffer.hpp"
#include "errors.hpp"
#include "runtime_handle.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace py = pybind11;

namespace cudabridge::python {

namespace {

cbModule_t module_of(uint64_t handle) {
    if (handle == 0) throw py::value_error("module_launch: no module (handle 0)");
    return reinterpret_cast<cbModule_t>(handle);
}

cbDim3 dim3_of(const py::tuple& t, const char* what) {
    if (t.size() != 3) throw py::value_error(std::string("module_launch: ") + what + " must be (x, y, z)");
    cbDim3 d{};
    unsigned int* v[] = {&d.x, &d.y, &d.z};
    for (size_t i = 0; i < 3; ++i) {
        const auto n = t[i].cast<long long>();
        if (n < 1 || n > 0x7fffffffLL)
            throw py::value_error(std::string("module_launch: ") + what + " dimensions must be >= 1, not " +
                                  std::to_string(n));
        *v[i] = static_cast<unsigned int>(n);
    }
    return d;
}

uint64_t load(const py::bytes& image, int format) {
    const std::string bytes = image;  // copied: the load runs without the GIL
    auto& rt = current();
    cbModule_t module = nullptr;
    cbError_t e;
    {
        py::gil_scoped_release nogil;
        e = rt.module_load(&module, bytes.data(), bytes.size(), static_cast<cb_module_format>(format));
    }
    check(e);
    return reinterpret_cast<uint64_t>(module);
}

void launch(uint64_t handle, const std::string& name, const py::tuple& grid, const py::tuple& block,
            const py::list& args, size_t shared_mem, uint64_t stream) {
    const cbModule_t module = module_of(handle);
    const cbDim3 g = dim3_of(grid, "grid");
    const cbDim3 b = dim3_of(block, "block");
    std::vector<std::string> raw;  // the bytes of ("b", ...) arguments, alive until the launch returns
    raw.reserve(args.size());      // never reallocated: the arguments point into it
    std::vector<cbKernelArg> out;
    out.reserve(args.size());
    for (const auto& item : args) {
        const auto a = item.cast<py::tuple>();
        const auto kind = a[0].cast<std::string>();
        if (kind == "p" && a.size() == 3) {
            const device_buffer& buf = buffer_of(a[1]);
            check_alive(buf);
            const auto offset = a[2].cast<uint64_t>();
            if (offset > buf.nbytes) throw py::value_error("module_launch: a pointer past the end of its buffer");
            out.push_back(cbArgPointer(static_cast<const char*>(buf.ptr) + offset));
        } else if (kind == "i" && a.size() == 2) {
            out.push_back(cbArgInt(a[1].cast<int64_t>()));
        } else if (kind == "u" && a.size() == 2) {
            out.push_back(cbArgUInt(a[1].cast<uint64_t>()));
        } else if (kind == "f" && a.size() == 2) {
            out.push_back(cbArgDouble(a[1].cast<double>()));
        } else if (kind == "b" && a.size() == 2) {
            raw.push_back(a[1].cast<std::string>());
            cbKernelArg k{};
            k.type = CB_ARG_BYTES;
            k.size = static_cast<uint32_t>(raw.back().size());
            k.value.bytes = raw.back().data();
            out.push_back(k);
        } else {
            throw py::type_error(
                "module_launch: an argument is (\"p\", Buffer, offset), (\"i\"|\"u\", int), "
                "(\"f\", float) or (\"b\", bytes)");
        }
    }
    auto& rt = current();
    cbError_t e;
    {
        py::gil_scoped_release nogil;
        e = rt.launch_kernel(module, name.c_str(), g, b, out.data(), out.size(), shared_mem, stream_of(stream));
    }
    check(e);
}

}  // namespace

void add_user_modules(py::module_& m) {
    m.def("module_load", &load, py::arg("image"), py::arg("format"));
    m.def("module_unload", [](uint64_t handle) { check(current().module_unload(module_of(handle))); });
    m.def("module_launch", &launch, py::arg("handle"), py::arg("name"), py::arg("grid"), py::arg("block"),
          py::arg("args"), py::arg("shared_mem") = 0, py::arg("stream") = 0);
}

}  // namespace cudabridge::python

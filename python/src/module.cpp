// cudabridge._core: the host runtime for the Python package (cudabridge/). The package keeps
// the numpy semantics (shapes, dtypes, views, promotion); this module moves bytes, launches the
// built-in kernels on tensor descriptors, and manages devices, streams, events and callbacks.
// Every call that may wait releases the GIL.
#include "device_buffer.hpp"
#include "dlpack.hpp"
#include "errors.hpp"
#include "event_dispatch.hpp"
#include "kernel_launch.hpp"
#include "runtime_handle.hpp"
#include "user_modules.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cudabridge/builtin_kernels.h>
#include <cudabridge/core/error.hpp>
#include <cudabridge/host/device.hpp>
#include <cudabridge/host/link_names.hpp>

#include <cstring>
#include <memory>
#include <vector>

namespace py = pybind11;

namespace cudabridge::python {

namespace {

std::unique_ptr<event_dispatch>& dispatcher() {
    static std::unique_ptr<event_dispatch> d;
    return d;
}

cbEvent_t event_of(uint64_t handle) { return reinterpret_cast<cbEvent_t>(handle); }

// ---- lifetime -------------------------------------------------------------------------------

int init(bool autoconnect, const std::string& device) {
    auto& s = slot();
    if (s.rt) return s.rt->device_count();
    host::runtime_options o;
    o.autoconnect = autoconnect;
    o.device = device;
    // Python programs print their own output; the runtime's log lines go to the file and the
    // database, and only warnings and errors to the terminal.
    o.session.console_level = CB_LOG_WARN;
    std::unique_ptr<host::runtime> rt;
    try {
        py::gil_scoped_release nogil;
        rt = std::make_unique<host::runtime>(std::move(o));
    } catch (const core::error& e) {
        throw runtime_failure(cbErrorInitializationError, e.what());
    }
    if (rt->device_count() == 0) throw runtime_failure(cbErrorNoDevice, "no eGPU: " + rt->startup_error());
    s.rt = std::move(rt);
    s.started = ++s.generation;
    s.reset_at.clear();
    dispatcher() = std::make_unique<event_dispatch>();
    for (int i = 0; i < s.rt->device_count(); ++i) dispatcher()->attach(s.rt->device(i));
    return s.rt->device_count();
}

void shutdown() {
    auto& s = slot();
    if (!s.rt) return;
    ++s.generation;  // buffers still alive no longer free into this runtime
    s.pool.drain();  // the runtime frees its memory as it goes
    std::unique_ptr<host::runtime> rt = std::move(s.rt);
    std::unique_ptr<event_dispatch> d = std::move(dispatcher());
    if (d) d->clear();  // the Python functions, with the GIL held
    py::gil_scoped_release nogil;
    rt.reset();  // synchronizes, frees, detaches; no callback runs after this
    d.reset();
}

bool initialized() { return slot().rt != nullptr; }

// ---- devices --------------------------------------------------------------------------------

py::dict properties(int ordinal) {
    cbDeviceProp p{};
    check(current().get_properties(&p, ordinal));
    py::dict d;
    d["name"] = std::string(p.name);
    d["uuid"] = std::string(p.uuid);
    d["architecture"] = std::string(p.architecture);
    d["compute_capability"] = py::make_tuple(p.major, p.minor);
    d["multiprocessor_count"] = p.multiProcessorCount;
    d["total_memory"] = p.totalGlobalMem;
    d["warp_size"] = p.warpSize;
    d["max_threads_per_block"] = p.maxThreadsPerBlock;
    d["clock_mhz"] = p.clockRate / 1000;
    d["memory_clock_mhz"] = p.memoryClockRate / 1000;
    d["memory_bus_width"] = p.memoryBusWidth;
    d["pci_bus_id"] = std::string(p.pciBusId);
    d["pci_device_id"] = p.pciDeviceId;
    d["backend"] = std::string(p.backend);
    d["simulated"] = p.isSimulated != 0;
    d["link"] = std::string(p.linkName);
    d["link_bandwidth_gbs"] = p.linkBandwidthGBs;
    d["pcie_link"] = py::make_tuple(p.pcieLinkGen, p.pcieLinkWidth);
    return d;
}

py::dict telemetry(int ordinal) {
    auto& d = current().device(ordinal);
    cb_gpu_telemetry t{};
    const cb_status st = d.read_telemetry(t);
    if (st != CB_OK)
        throw runtime_failure(st == CB_ERR_DEVICE_LOST ? cbErrorDeviceLost : cbErrorUnknown, core::last_error());
    const auto h = d.health();
    const auto link = d.link_status();
    py::dict o;
    o["modeled"] = t.is_simulated != 0;
    o["temperature_c"] = t.temperature_c;
    o["power_w"] = t.power_w;
    o["power_limit_w"] = t.power_limit_w;
    o["fan_percent"] = t.fan_percent < 0 ? py::object(py::none()) : py::object(py::float_(t.fan_percent));
    o["sm_clock_mhz"] = t.sm_clock_mhz;
    o["memory_clock_mhz"] = t.memory_clock_mhz;
    o["gpu_utilization"] = t.gpu_utilization;
    o["memory_used"] = t.memory_used;
    o["memory_total"] = t.memory_total;
    o["performance_state"] = "P" + std::to_string(t.performance_state);
    o["pcie_link"] = py::make_tuple(t.pcie_link_gen, t.pcie_link_width);
    o["state"] = std::string(host::state_name(d.state()));
    o["heartbeat_age_ms"] = h.sample.heartbeat_age_ms;
    o["error_rate"] = h.sample.error_rate;
    o["recoveries"] = h.recoveries;
    o["link_generation"] = std::string(host::generation_name(link.generation));
    o["link_crc_errors"] = link.crc_errors;
    o["link_replays"] = link.replays;
    return o;
}

py::tuple mem_info() {
    size_t free = 0, total = 0;
    check(current().mem_get_info(&free, &total));
    return py::make_tuple(free, total);
}

int connect(const std::string& device) {
    auto& rt = current();
    host::connect_options o;
    o.device = device;
    std::unique_ptr<host::device> d;
    try {
        py::gil_scoped_release nogil;
        d = host::connect(rt.current_session(), o);
    } catch (const host::connect_error& e) {
        const bool refused = (e.step() == "compatibility" || e.step() == "authorization") &&
                             (e.status() == CB_ERR_UNSUPPORTED || e.status() == CB_ERR_PERMISSION);
        throw runtime_failure(refused                          ? cbErrorRefused
                              : e.status() == CB_ERR_NO_DEVICE ? cbErrorNoDevice
                                                               : cbErrorUnknown,
                              e.what());
    }
    if (dispatcher()) dispatcher()->attach(*d);
    return rt.adopt(std::move(d));
}

void disconnect(bool force) {
    auto& rt = current();
    host::disconnect_options o;
    o.force = force;
    py::gil_scoped_release nogil;
    rt.disconnect_all(o);
}

// A query's answer: done (True) or not yet (False). Every other status, device loss included, is
// an error the caller must see, never a "not yet" it would poll forever.
bool done_or_raise(cbError_t e) {
    if (e == cbErrorNotReady) return false;
    check(e);
    return true;
}

// ---- memory ---------------------------------------------------------------------------------

// Ordered on `stream` (after the work queued there, which may still read a reused block), and
// done when it returns: the host array may change right after.
// The host address of [offset, offset + nbytes) of a buffer, through the GPU's BAR1 aperture
// (cbMemGetHostPointer): what a zero-copy DLPack export hands out on the simulated GPU.
uint64_t host_pointer(py::handle buffer, size_t offset, size_t nbytes) {
    const device_buffer& b = buffer_of(buffer);
    check_alive(b);
    if (nbytes == 0 || offset > b.nbytes || nbytes > b.nbytes - offset)
        throw runtime_failure(cbErrorInvalidValue, "host_pointer: an empty range or one past the end of the buffer");
    void* host = nullptr;
    check(current().mem_host_pointer(&host, static_cast<char*>(b.ptr) + offset, nbytes));
    return reinterpret_cast<uint64_t>(host);
}

void upload(py::handle buffer, size_t offset, const py::buffer& src, uint64_t stream) {
    const device_buffer& dst = buffer_of(buffer);
    check_alive(dst);
    const py::buffer_info info = src.request();
    const size_t bytes = static_cast<size_t>(info.size * info.itemsize);
    if (offset + bytes > dst.nbytes) throw runtime_failure(cbErrorInvalidValue, "upload past the end of the buffer");
    auto& rt = current();
    void* p = static_cast<char*>(dst.ptr) + offset;
    py::gil_scoped_release nogil;
    if (stream) {
        check(rt.memcpy(p, info.ptr, bytes, cbMemcpyHostToDevice, stream_of(stream), true));
        check(rt.stream_synchronize(stream_of(stream)));
    } else {
        check(rt.memcpy(p, info.ptr, bytes, cbMemcpyHostToDevice, nullptr, false));
    }
}

void download(py::handle buffer, size_t offset, const py::buffer& dst, uint64_t stream) {
    const device_buffer& src = buffer_of(buffer);
    check_alive(src);
    const py::buffer_info info = dst.request(true);
    const size_t bytes = static_cast<size_t>(info.size * info.itemsize);
    if (offset + bytes > src.nbytes) throw runtime_failure(cbErrorInvalidValue, "download past the end of the buffer");
    auto& rt = current();
    const void* p = static_cast<const char*>(src.ptr) + offset;
    py::gil_scoped_release nogil;
    if (stream) {
        check(rt.memcpy(info.ptr, p, bytes, cbMemcpyDeviceToHost, stream_of(stream), true));
        check(rt.stream_synchronize(stream_of(stream)));
    } else {
        check(rt.memcpy(info.ptr, p, bytes, cbMemcpyDeviceToHost, nullptr, false));
    }
}

// ---- streams and events ---------------------------------------------------------------------

uint64_t stream_create(bool non_blocking) {
    cbStream_t s = nullptr;
    check(current().stream_create(&s, non_blocking ? cbStreamNonBlocking : 0u));
    return reinterpret_cast<uint64_t>(s);
}

void with_nogil(const std::function<cbError_t(host::runtime&)>& call) {
    auto& rt = current();
    cbError_t e;
    {
        py::gil_scoped_release nogil;
        e = call(rt);
    }
    check(e);
}

// cudaDeviceReset for Python: the current device's context starts over (a sticky error, such as
// the DeviceResetError a hard reset leaves, is cleared). Its memory is gone: the pool forgets
// that device's blocks without freeing them, and its arrays made before raise DeviceResetError.
void device_reset() {
    auto& s = slot();
    host::runtime& rt = current();
    int device = 0;
    check(rt.get_device(&device));
    for (const pooled_block& b : s.pool.drain())
        if (b.device != device) free_device_memory(b.device, b.ptr);
    s.reset_at[device] = ++s.generation;
    with_nogil([](host::runtime& r) { return r.reset_device(); });
}

}  // namespace

}  // namespace cudabridge::python

PYBIND11_MODULE(_core, m) {
    using namespace cudabridge::python;
    namespace host = cudabridge::host;
    m.doc() = "CudaBridge host runtime for the cudabridge package (private: use `import cudabridge`)";
    install_error_translator();
    m.def("_register_errors", &register_error_classes);

    m.def("init", &init, py::arg("autoconnect") = true, py::arg("device") = std::string());
    m.def("shutdown", &shutdown);
    m.def("device_reset", &device_reset);
    m.def("initialized", &initialized);
    m.def("device_count", [] { return current().device_count(); });
    m.def("set_device", [](int i) { check(current().set_device(i)); });
    m.def("get_device", [] {
        int i = 0;
        check(current().get_device(&i));
        return i;
    });
    m.def("synchronize", [] { with_nogil([](host::runtime& rt) { return rt.synchronize(); }); });
    m.def("properties", &properties);
    m.def("telemetry", &telemetry);
    m.def("mem_info", &mem_info);
    m.def("connect", &connect, py::arg("device") = std::string());
    m.def("disconnect", &disconnect, py::arg("force") = false);
    m.def("transport_control", [](const std::string& request) {
        try {
            return current().current_session().transport_control(request);
        } catch (const cudabridge::core::error& e) {
            throw runtime_failure(cbErrorInvalidValue, e.what());
        }
    });

    add_buffer_type(m);
    m.def("tensor", &make_tensor, py::arg("buffer"), py::arg("offset"), py::arg("dtype"), py::arg("shape"),
          py::arg("strides"));
    m.def("host_pointer", &host_pointer, py::arg("buffer"), py::arg("offset"), py::arg("nbytes"));
    m.def("upload", &upload, py::arg("dst"), py::arg("offset"), py::arg("src"), py::arg("stream") = 0);
    m.def("download", &download, py::arg("src"), py::arg("offset"), py::arg("dst"), py::arg("stream") = 0);
    m.def("launch", &launch, py::arg("name"), py::arg("dtype"), py::arg("args"), py::arg("stream") = 0);
    add_launch_new(m);
    add_user_modules(m);
    add_dlpack(m);
    m.def("pooled_bytes", [] { return slot().pool.bytes(); });
    m.def("free_pool", &free_pool);
    m.def("generation", [] { return slot().generation; });
    m.def("memset", [](py::handle buffer, int value, uint64_t stream) {
        const device_buffer& b = buffer_of(buffer);
        check_alive(b);
        void* p = b.ptr;
        const size_t n = b.nbytes;
        with_nogil([&](host::runtime& rt) { return rt.memset(p, value, n, stream_of(stream), stream != 0); });
    });

    m.def("stream_create", &stream_create, py::arg("non_blocking") = false);
    m.def("stream_destroy", [](uint64_t s) { check(current().stream_destroy(stream_of(s))); });
    m.def("stream_synchronize",
          [](uint64_t s) { with_nogil([&](host::runtime& rt) { return rt.stream_synchronize(stream_of(s)); }); });
    m.def("stream_query", [](uint64_t s) { return done_or_raise(current().stream_query(stream_of(s))); });
    m.def("event_create", [] {
        cbEvent_t e = nullptr;
        check(current().event_create(&e));
        return reinterpret_cast<uint64_t>(e);
    });
    m.def("event_destroy", [](uint64_t e) { check(current().event_destroy(event_of(e))); });
    m.def("event_record", [](uint64_t e, uint64_t s) { check(current().event_record(event_of(e), stream_of(s))); });
    m.def("event_synchronize",
          [](uint64_t e) { with_nogil([&](host::runtime& rt) { return rt.event_synchronize(event_of(e)); }); });
    m.def("event_query", [](uint64_t e) { return done_or_raise(current().event_query(event_of(e))); });
    m.def("event_elapsed_ms", [](uint64_t a, uint64_t b) {
        float ms = 0;
        with_nogil([&](host::runtime& rt) { return rt.event_elapsed(&ms, event_of(a), event_of(b)); });
        return ms;
    });

    m.def("add_callback", [](py::object fn) {
        current();
        return dispatcher()->add(std::move(fn));
    });
    m.def("remove_callback", [](int id) { return dispatcher() ? dispatcher()->remove(id) : false; });
}

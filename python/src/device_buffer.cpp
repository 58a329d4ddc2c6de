#include "device_buffer.hpp"

#include "runtime_handle.hpp"

#include <pybind11/pybind11.h>

namespace cudabridge::python {

device_buffer::device_buffer(size_t nbytes) : nbytes_(nbytes) {
    auto& rt = current();
    generation_ = slot().generation;
    check(rt.get_device(&device_));
    pybind11::gil_scoped_release nogil;
    // A zero-byte array still gets a distinct address, as numpy's do.
    check(rt.malloc(&ptr_, nbytes ? nbytes : 1));
}

device_buffer::~device_buffer() {
    auto& s = slot();
    if (!s.rt || s.generation != generation_ || !ptr_) return;  // gone with the runtime
    int was = 0;
    s.rt->get_device(&was);
    if (was != device_) s.rt->set_device(device_);
    {
        pybind11::gil_scoped_release nogil;
        s.rt->free(ptr_);
    }
    if (was != device_) s.rt->set_device(was);
}

void device_buffer::check_alive() const { check_generation(generation_); }

}  // namespace cudabridge::python

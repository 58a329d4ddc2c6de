#include "runtime_handle.hpp"

#include "errors.hpp"

namespace cudabridge::python {

runtime_slot& slot() {
    static runtime_slot s;
    return s;
}

host::runtime& current() {
    auto& s = slot();
    if (!s.rt) throw runtime_failure(cbErrorInitializationError, "cudabridge is not initialized: call cb.init() first");
    return *s.rt;
}

bool alive(uint64_t generation, int device) {
    const auto& s = slot();
    if (!s.rt || generation < s.started) return false;
    const auto reset = s.reset_at.find(device);
    return reset == s.reset_at.end() || generation >= reset->second;
}

void check_generation(uint64_t generation, int device) {
    if (alive(generation, device)) return;
    const auto& s = slot();
    if (s.rt && generation >= s.started)
        throw runtime_failure(cbErrorDeviceReset, "this array's memory went with the reset of device " +
                                                      std::to_string(device) + " (cb.device_reset()); make it again");
    throw runtime_failure(cbErrorInitializationError,
                          "this array belongs to a runtime that was shut down (cb.shutdown()); its memory is gone");
}

void free_device_memory(int device, void* ptr) {
    auto& s = slot();
    if (!s.rt || !ptr) return;
    int was = 0;
    s.rt->get_device(&was);
    if (was != device) s.rt->set_device(device);
    {
        pybind11::gil_scoped_release nogil;
        s.rt->free(ptr);
    }
    if (was != device) s.rt->set_device(was);
}

void free_pool() {
    for (const pooled_block& b : slot().pool.drain()) free_device_memory(b.device, b.ptr);
}

void check(cbError_t e) {
    if (e == cbSuccess) return;
    const char* message = cbGetLastErrorMessage();
    std::string text = message && *message ? message : cbGetErrorString(e);
    throw runtime_failure(e, text);
}

}  // namespace cudabridge::python

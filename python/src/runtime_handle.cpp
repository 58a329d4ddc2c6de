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

void check_generation(uint64_t generation) {
    auto& s = slot();
    if (!s.rt || generation != s.generation)
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

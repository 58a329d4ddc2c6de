// The one host runtime of the Python module (cb.init() to cb.shutdown()), its pool of device
// memory, and the generation that device buffers are stamped with, so that a buffer outliving
// cb.shutdown() is refused with a clear error instead of touching freed memory.
#pragma once

#include "buffer_pool.hpp"

#include <cudabridge/host/runtime.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace cudabridge::python {

struct runtime_slot {
    std::unique_ptr<host::runtime> rt;
    uint64_t generation = 0;           // bumped by every init, shutdown and device reset
    uint64_t started = 0;              // the generation the live runtime started at
    std::map<int, uint64_t> reset_at;  // the generation of each device's last cb.device_reset()
    buffer_pool pool;                  // blocks of the live runtime, for reuse
};

// The module's runtime registry (the only global state of the extension).
runtime_slot& slot();
// The runtime; throws the module's Error when cb.init() has not run or cb.shutdown() did.
host::runtime& current();
// Whether memory stamped `generation` on `device` still exists: made by the live runtime, after
// that device's last reset.
bool alive(uint64_t generation, int device);
// Throws the module's Error unless alive(generation, device): DeviceResetError after a reset of
// the device, Error after cb.shutdown().
void check_generation(uint64_t generation, int device);
// Frees device memory of `device` (waits for the work queued on it); GIL released inside.
void free_device_memory(int device, void* ptr);
// Frees everything the pool holds.
void free_pool();

// A stream handle as Python holds it (an integer; 0 is the default stream).
inline cbStream_t stream_of(uint64_t handle) { return reinterpret_cast<cbStream_t>(handle); }

// A runtime call's result: cbSuccess, or the error mapped to the module's exception classes.
void check(cbError_t e);

}  // namespace cudabridge::python

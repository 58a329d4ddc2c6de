// Host words the device writes by DMA whenever it likes (the fence word, event timestamps).
// Those writes come from outside the program (on hardware, from the bus), so they are outside
// the C++ memory model: the driver reads them with one volatile 64-bit load of an aligned word,
// which is a single access on every platform we build for, and trusts a value only as far as
// the registers confirm it. ThreadSanitizer would see the simulated device's memcpy as a race,
// so these two accessors are not instrumented.
#pragma once

#include <cstdint>

namespace cudabridge::nv {

__attribute__((noinline, no_sanitize("thread"))) inline uint64_t read_device_word(const uint64_t* word) {
    return *static_cast<const volatile uint64_t*>(word);
}

__attribute__((noinline, no_sanitize("thread"))) inline void clear_device_word(uint64_t* word) {
    *static_cast<volatile uint64_t*>(word) = 0;
}

}  // namespace cudabridge::nv

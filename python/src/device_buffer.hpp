// Device memory owned by a Python object: allocated from the runtime's caching allocator, freed
// when the last array viewing it goes away (after the work queued on it, as cudaFree does).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudabridge::python {

class device_buffer {
public:
    explicit device_buffer(size_t nbytes);
    ~device_buffer();
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;

    uint64_t ptr() const { return reinterpret_cast<uint64_t>(ptr_); }
    size_t nbytes() const { return nbytes_; }
    int device() const { return device_; }
    uint64_t generation() const { return generation_; }
    // Throws the module's Error when the runtime it came from was shut down.
    void check_alive() const;

private:
    void* ptr_ = nullptr;
    size_t nbytes_ = 0;
    int device_ = 0;
    uint64_t generation_ = 0;
};

}  // namespace cudabridge::python

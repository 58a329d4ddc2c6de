// Device memory, pinned host memory and event pairs from a host runtime, released on every path
// out (benchmark and diag allocate several and throw on the first failed call).
#pragma once

#include <cudabridge/host/runtime.hpp>

#include <algorithm>
#include <limits>

namespace cudabridge::cli {

class device_buffer {
public:
    device_buffer(host::runtime& rt, size_t size) : rt_(rt) { host::check(rt.malloc(&p_, size)); }
    ~device_buffer() { rt_.free(p_); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    void* get() const { return p_; }

private:
    host::runtime& rt_;
    void* p_ = nullptr;
};

class pinned_buffer {
public:
    pinned_buffer(host::runtime& rt, size_t size) : rt_(rt) { host::check(rt.malloc_host(&p_, size)); }
    ~pinned_buffer() { rt_.free_host(p_); }
    pinned_buffer(const pinned_buffer&) = delete;
    pinned_buffer& operator=(const pinned_buffer&) = delete;
    unsigned char* get() const { return static_cast<unsigned char*>(p_); }

private:
    host::runtime& rt_;
    void* p_ = nullptr;
};

class event_pair {
public:
    explicit event_pair(host::runtime& rt) : rt_(rt) {
        host::check(rt.event_create(&start));
        host::check(rt.event_create(&stop));
    }
    ~event_pair() {
        rt_.event_destroy(start);
        rt_.event_destroy(stop);
    }
    event_pair(const event_pair&) = delete;
    event_pair& operator=(const event_pair&) = delete;
    float elapsed_ms() {
        float ms = 0;
        host::check(rt_.event_elapsed(&ms, start, stop));
        return ms;
    }
    cbEvent_t start = nullptr, stop = nullptr;

private:
    host::runtime& rt_;
};

// Seconds on the device's clock that `reps` runs of `work` take on the default stream.
template <class Work>
double device_seconds(host::runtime& rt, int reps, Work&& work) {
    event_pair ev(rt);
    host::check(rt.event_record(ev.start, nullptr));
    for (int r = 0; r < reps; ++r) work();
    host::check(rt.event_record(ev.stop, nullptr));
    host::check(rt.stream_synchronize(nullptr));
    return ev.elapsed_ms() * 1e-3;
}

// The best of `reps` runs of `work`, each between its own pair of events, in seconds on the
// device's clock. A busy host leaves the device idle between its commands, and the device's
// clock runs on while it idles (a real GPU's does too): timing the runs together would measure
// the host, and a loaded machine would make a healthy link look slow.
template <class Work>
double best_device_seconds(host::runtime& rt, int reps, Work&& work) {
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < reps; ++r) best = std::min(best, device_seconds(rt, 1, work));
    return best;
}

// A square float32 matrix of order n at p, row-major.
inline cbTensor square_matrix(void* p, int64_t n) {
    cbTensor t = cbTensor1D(p, CB_DTYPE_FLOAT32, n * n);
    t.ndim = 2;
    t.shape[0] = t.shape[1] = n;
    t.strides[0] = n;
    t.strides[1] = 1;
    return t;
}

}  // namespace cudabridge::cli

// A run of small asynchronous host-to-device copies, checked end to end as one span.
//
// A checked copy queues a crc32c kernel behind it; for a 64-byte copy that doubles the commands
// the GPU runs. Copies of at most `largest_copy` bytes queued one after another on one stream
// instead extend a run, which keeps the bytes its span must hold once they are done: the copies'
// sources, a later copy winning where it overlaps an earlier one. The runtime ends the run (one
// crc32c over the span, compared with the CRC of those bytes) before any other call reaches the
// device, so nothing else can write the span in between. What the check proves is what the
// per-copy checks proved about the end state: the device holds exactly what the host sent. A byte
// an earlier copy delivered wrong and a later copy overwrote before anything read it goes
// unreported; nothing could have seen it.
#pragma once

#include <cudabridge/gpu.h>

#include <cstddef>
#include <cstdint>
#include <vector>

struct cbStream_st;

namespace cudabridge::host {

struct copy_run {
    static constexpr size_t largest_copy = 4096;      // bytes; a larger copy is checked on its own
    static constexpr size_t largest_span = 64 << 10;  // bytes one run's span may cover

    cbStream_st* stream = nullptr;  // the user's stream (the default stream's object for none)
    cb_gpu_stream* plugin_stream = nullptr;
    uint64_t start = 0;                // the span's first device address
    std::vector<unsigned char> bytes;  // what the span must hold once the copies are done
    size_t copies = 0;

    bool empty() const { return copies == 0; }
};

struct device_span {
    uint64_t start = 0;
    uint64_t size = 0;
};

// The span the run would cover with a copy of `size` bytes to `dst` added.
device_span span_with(const copy_run& r, uint64_t dst, size_t size);

// Whether that copy may join the run: a small copy, on the run's stream, leaving no gap in the
// span (bytes in a gap are unknown to the host), within largest_span. The caller still checks that
// the span lies inside one allocation. Any small copy may start an empty run.
bool joins(const copy_run& r, const cbStream_st* stream, uint64_t dst, size_t size);

// Adds a copy that joins() allowed: its source bytes land in the run's picture of the span.
void extend(copy_run& r, cbStream_st* stream, cb_gpu_stream* plugin_stream, uint64_t dst, const void* src, size_t size);

// Forgets the copies (keeping the buffer's memory for the next run).
void clear(copy_run& r);

}  // namespace cudabridge::host

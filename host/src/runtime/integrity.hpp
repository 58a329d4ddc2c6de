// End-to-end checks of copies (enable_data_integrity): a CRC-32C of each chunk of the source,
// compared with one computed on the far side — by the GPU's crc32c built-in for data that lands
// in VRAM, by the host for data that lands in host memory. This catches what the link's
// per-packet CRC cannot: corruption before or after the wire. A mismatch is an error and an
// event, never silent; synchronous copies are retried first.
//
// Asynchronous copies queue the GPU's CRCs on their stream, into the stream's CRC arena (one
// small device buffer), and are compared when the stream is synchronized: one read of the arena
// settles every check queued since, whatever their number.
#pragma once

#include <cudabridge.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::host {

class device_context;
struct gpu_call;

// CRC-32C (Castagnoli) of each `chunk`-byte piece of [data, data + size).
std::vector<uint32_t> chunk_crcs(const void* data, size_t size, uint64_t chunk);
// The chunk size for a copy: 1 MiB, or larger for huge copies so that one copy needs at most
// 1024 CRCs.
uint64_t chunk_for(size_t size);

// Device memory for the CRCs a stream's queued checks will read back.
struct crc_arena {
    static constexpr size_t slots = 4096;  // int64 each: 32 KiB
    uint64_t address = 0;                  // 0 until first used
    size_t used = 0;
};

// A check queued behind an asynchronous copy, settled when its stream is synchronized.
struct pending_check {
    cbMemcpyKind kind = cbMemcpyHostToDevice;
    uint64_t chunk = 0;
    std::vector<uint32_t> expected;  // host-to-device: the source's CRCs when it was queued
    void* host = nullptr;            // device-to-host: the destination, read once complete
    size_t size = 0;
    size_t far_slot = 0;   // arena slots of the CRCs the GPU computed (of the data
    size_t near_slot = 0;  // on the device; device-to-device: near = source)
};

class integrity_checker {
public:
    integrity_checker(device_context& ctx, bool enabled, uint32_t retries);

    bool enabled() const noexcept { return enabled_; }
    // Turns checking off when the GPU family has no crc32c kernel (said once, in the log).
    void disable(const std::string& why);

    // A synchronous copy, verified; retried up to `retries` times on a mismatch.
    cb_status copy(gpu_call& g, void* dst, const void* src, size_t size, cbMemcpyKind kind);
    // Slots a queued check of this copy needs in an arena.
    static size_t slots_for(size_t size, cbMemcpyKind kind);
    // Queues the far side's CRCs on `stream` right behind the copy just queued there. The
    // arena must have slots_for() free slots (the caller settles the stream first otherwise).
    cb_status queue(gpu_call& g, cb_gpu_stream* stream, crc_arena& arena, void* dst, const void* src, size_t size,
                    cbMemcpyKind kind, pending_check& out);
    // Compares every check queued on a stream once it is done (one read of its arena).
    cb_status settle(gpu_call& g, crc_arena& arena, std::vector<pending_check>& checks);
    // Gives the arena's memory back (the stream is going away).
    void release(crc_arena& arena) noexcept;

private:
    cb_status launch_crcs(gpu_call& g, uint64_t address, size_t size, uint64_t chunk, cb_gpu_stream* stream,
                          uint64_t out);
    cb_status read_crcs(gpu_call& g, uint64_t address, size_t count, std::vector<uint32_t>& out);
    cb_status verify_once(gpu_call& g, void* dst, const void* src, size_t size, cbMemcpyKind kind, bool& match);
    cb_status mismatch(const std::string& what);

    device_context& ctx_;
    bool enabled_;
    uint32_t retries_;
};

}  // namespace cudabridge::host

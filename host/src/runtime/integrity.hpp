// End-to-end checks of copies (enable_data_integrity): a CRC-32C of each chunk of the source,
// compared with one computed on the far side — by the GPU's crc32c built-in for data that lands
// in VRAM, by the host for data that lands in host memory. This catches what the link's
// per-packet CRC cannot: corruption before or after the wire. A mismatch is an error and an
// event, never silent; synchronous copies are retried first.
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

// A check queued behind an asynchronous copy, settled when its stream is synchronized.
struct pending_check {
    cbMemcpyKind kind = cbMemcpyHostToDevice;
    std::vector<uint32_t> expected;  // host-to-device: the source's CRCs when it was queued
    void* host = nullptr;            // device-to-host: the destination, read once complete
    size_t size = 0;
    uint64_t far_crcs = 0;           // device scratch: CRCs the GPU computed of the source/dest
    uint64_t near_crcs = 0;          // device-to-device: CRCs of the source
    std::string what;
};

class integrity_checker {
public:
    integrity_checker(device_context& ctx, bool enabled, uint64_t chunk_bytes, uint32_t retries);

    bool enabled() const noexcept { return enabled_; }
    uint64_t chunk() const noexcept { return chunk_; }
    // Turns checking off when the GPU family has no crc32c kernel (said once, in the log).
    void disable(const std::string& why);

    // A synchronous copy, verified; retried up to `retries` times on a mismatch.
    cb_status copy(gpu_call& g, void* dst, const void* src, size_t size, cbMemcpyKind kind);
    // Queues the far side's CRCs on `stream` right behind the copy just queued there.
    cb_status queue(gpu_call& g, cb_gpu_stream* stream, void* dst, const void* src, size_t size, cbMemcpyKind kind,
                    pending_check& out);
    // Compares a queued check once its stream is done; frees its scratch.
    cb_status settle(gpu_call& g, pending_check& check);
    void drop(gpu_call& g, pending_check& check) noexcept;  // frees scratch, no comparison

private:
    cb_status device_crcs(gpu_call& g, uint64_t address, size_t size, cb_gpu_stream* stream, uint64_t& scratch);
    cb_status read_crcs(gpu_call& g, uint64_t scratch, size_t size, std::vector<uint32_t>& out);
    cb_status verify_once(gpu_call& g, void* dst, const void* src, size_t size, cbMemcpyKind kind, bool& match);
    cb_status mismatch(const std::string& what);

    device_context& ctx_;
    bool enabled_;
    uint64_t chunk_;
    uint32_t retries_;
};

}  // namespace cudabridge::host

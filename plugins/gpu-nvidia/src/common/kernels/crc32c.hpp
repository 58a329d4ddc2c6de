// The built-in `crc32c` on the CPU engine: out[i] = the standard CRC-32C (Castagnoli; reflected,
// init and final xor 0xFFFFFFFF, so "123456789" gives 0xE3069283) of bytes
// [i * chunk, min(n, (i + 1) * chunk)) of `in`, as an int64. Chunks run in parallel on the
// engine's threads, each through ISA-L's crc32_iscsi (runtime-dispatched SIMD).
#pragma once

#include <cstdint>

#include "common/kernels/engine.hpp"
#include "common/errors/fail.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

// Elements `out` must have for `n` bytes in chunks of `chunk` (> 0): ceil(n / chunk).
std::int64_t crc32c_chunk_count(std::int64_t n, std::int64_t chunk);

// in: uint8, 1-D, contiguous; out: int64, 1-D, contiguous, crc32c_chunk_count elements.
cb_status crc32c(const tensor_view& in, std::int64_t chunk, const tensor_view& out, std::string& error,
                 engine& eng = default_engine());

// The standard CRC-32C of one buffer (any length), through ISA-L.
std::uint32_t crc32c_of(const std::uint8_t* data, std::uint64_t n);

}  // namespace cudabridge::nv::kernels

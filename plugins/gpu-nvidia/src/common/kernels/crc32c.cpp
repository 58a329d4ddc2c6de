#include "common/kernels/crc32c.hpp"

#include <isa-l/crc.h>

#include <algorithm>
#include <climits>

namespace cudabridge::nv::kernels {

namespace {

// Chunks of at least this many bytes per engine task: smaller ones are grouped.
constexpr std::int64_t bytes_per_task = 256 << 10;

bool contiguous_1d(const tensor_view& t) { return t.ndim == 1 && (t.shape[0] <= 1 || t.strides[0] == 1); }

}  // namespace

std::int64_t crc32c_chunk_count(std::int64_t n, std::int64_t chunk) { return n / chunk + (n % chunk != 0 ? 1 : 0); }

std::uint32_t crc32c_of(const std::uint8_t* data, std::uint64_t n) {
    // ISA-L keeps the raw register: init ~0, final xor ~0 give the standard value. It takes an
    // int length and a non-const pointer (it only reads), so long buffers go in pieces.
    std::uint32_t reg = 0xFFFFFFFFu;
    for (std::uint64_t done = 0; done < n;) {
        const auto piece = static_cast<int>(std::min<std::uint64_t>(n - done, INT_MAX & ~0xFFF));
        reg = crc32_iscsi(const_cast<std::uint8_t*>(data + done), piece, reg);
        done += static_cast<std::uint64_t>(piece);
    }
    return ~reg;
}

cb_status crc32c(const tensor_view& in, std::int64_t chunk, const tensor_view& out, std::string& error, engine& eng) {
    if (chunk <= 0)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "crc32c: chunk must be > 0, got " + std::to_string(chunk));
    if (in.dtype != CB_DTYPE_UINT8 || !contiguous_1d(in))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "crc32c: the input must be a contiguous 1-D uint8 tensor");
    const std::int64_t n = in.shape[0], chunks = crc32c_chunk_count(n, chunk);
    if (out.dtype != CB_DTYPE_INT64 || !contiguous_1d(out) || out.shape[0] != chunks)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    "crc32c: the output must be a contiguous 1-D int64 tensor of " + std::to_string(chunks) +
                        " elements (ceil(" + std::to_string(n) + " / " + std::to_string(chunk) + "))");
    const auto* data = static_cast<const std::uint8_t*>(in.data);
    auto* result = static_cast<std::int64_t*>(out.data);
    const std::int64_t grain = std::max<std::int64_t>(1, bytes_per_task / chunk);
    eng.parallel_for(chunks, grain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            const std::int64_t first = i * chunk, length = std::min(chunk, n - first);
            result[i] = crc32c_of(data + first, static_cast<std::uint64_t>(length));
        }
    });
    return CB_OK;
}

}  // namespace cudabridge::nv::kernels

// The PTX inside an nvcc fatbin (what `nvcc -fatbin` writes and cuModuleLoadFatBinary takes).
// The layout, little-endian, as nvcc 12-13 write it: one or more containers, each a 16-byte
// header (magic 0xBA55ED50, version 1, header size 16, bytes of entries that follow) and entries
// back to back, each an entry header (kind 1 PTX / 2 ELF, its own size, payload size, compressed
// size, PTX version, sm architecture, flags, uncompressed size) and its payload. nvcc compresses
// payloads by default: flag 0x8000 is a zstd frame, 0x2000 an LZ4 block (--compress-mode=speed);
// decompressed with Debian's libzstd and liblz4. See docs/ptx-engine.md for the fields.
#pragma once

#include <cudabridge/abi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::nv {

enum class fatbin_kind : uint16_t { ptx = 1, elf = 2 };

struct fatbin_entry {
    uint16_t kind = 0;  // fatbin_kind, or another value this reader skips
    uint32_t arch = 0;  // 75 for sm_75 / compute_75
    uint16_t ptx_major = 0, ptx_minor = 0;
    uint64_t flags = 0;
    size_t payload = 0;          // offset of the payload in the image
    uint64_t payload_bytes = 0;  // stored bytes (compressed, or the text with its padding)
    uint64_t uncompressed_bytes = 0;
    uint32_t container = 0;  // which container of the image (0: the first)
};

inline constexpr uint64_t fatbin_zstd = 0x8000;
inline constexpr uint64_t fatbin_lz4 = 0x2000;

// Every entry of every container; CB_ERR_INVALID_ARGUMENT when the image is not a well-formed
// fatbin (bad magic, a size that runs past the image).
cb_status read_fatbin(const void* image, size_t size, std::vector<fatbin_entry>& out, std::string& error);

// The text of the PTX entry for the newest architecture. CB_ERR_UNSUPPORTED when the fatbin
// holds only machine code (the simulated GPU runs PTX), saying how to build with PTX. An image of
// several containers with PTX is a program built with -rdc (one container per translation unit,
// and NVIDIA's device runtime, which is left out: the engine provides it): the units' PTX one
// after another, each from its .version, which the PTX engine links (ptx/link_units.hpp).
cb_status newest_fatbin_ptx(const void* image, size_t size, std::string& ptx, std::string& error);

}  // namespace cudabridge::nv

// Device memory shared between processes (cudaIpcGetMemHandle). A simulated board's VRAM is pages
// of its own process's address space behind BAR1, so sharing an allocation moves its pages into a
// memory file (memfd) mapped at the same addresses: the board and its kernels see no change, and
// another process maps the same file behind an allocation of its own. A handle names the file by
// the sharing process's pid and descriptor and by a random token in the file's name, so a handle
// to memory since freed, or from a process since gone (its pid perhaps reused), is refused rather
// than mapped. Only a process allowed to read the other's descriptors (the same user) can open it.
#pragma once

#include <cudabridge/gpu.h>

#include <cstdint>
#include <string>

namespace cudabridge::nv {

// The 64 bytes of a handle (cudaIpcMemHandle_t).
struct share_record {
    char magic[8];
    int32_t pid;
    int32_t fd;
    uint64_t token;
    uint64_t file_bytes;   // the memory file's length: whole pages
    uint64_t first_byte;   // where the allocation starts in the file
    uint64_t offset;       // where the shared pointer lies past the allocation's start
    uint64_t alloc_bytes;  // the allocation's length
    uint64_t reserved;
};
static_assert(sizeof(share_record) == CB_GPU_SHARE_HANDLE_SIZE);

// Whole pages backed by a memory file.
struct shared_pages {
    uint8_t* start = nullptr;
    uint64_t length = 0;
    int fd = -1;
    uint64_t token = 0;
};

// Moves the pages that hold [host, host + bytes) into a new memory file, keeping their bytes.
cb_status share_pages(uint8_t* host, uint64_t bytes, shared_pages& out, std::string& error);
// Maps the file `r` names over [at, at + r.file_bytes) (`at` page-aligned).
cb_status map_shared_pages(const share_record& r, uint8_t* at, shared_pages& out, std::string& error);
// Gives the range back to private memory and closes the file. keep_edges: the first and last
// pages keep their bytes (they may hold a neighbouring allocation's).
void unshare_pages(shared_pages& pages, bool keep_edges) noexcept;

share_record make_share_record(const shared_pages& pages, uint64_t first_byte, uint64_t offset, uint64_t alloc_bytes);
// False when `handle` is no record share_pages' process made.
bool read_share_record(const void* handle, share_record& out);

}  // namespace cudabridge::nv

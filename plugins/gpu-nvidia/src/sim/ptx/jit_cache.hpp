// Compiled kernels on disk, so that a program's kernels (and a CUDA library's thousands) are
// compiled once per machine, not once per run. An entry is the machine code LLVM made for one
// kernel's IR on this CPU, by a key jit.cpp derives from everything that decides that code (the
// IR, the target, LLVM and this engine's build). Entries live in the user's cache folder
// ($XDG_CACHE_HOME or ~/.cache, then cudabridge/ptx-jit), 0700 and 0600, checked like any file
// loaded into the process; each carries its length and checksum, and one that fails either is
// deleted and compiled again, never run. The folder is kept under a size (oldest entries go
// first). CUDABRIDGE_PTX_CACHE=off (or 0, false, no) turns it off; CUDABRIDGE_PTX_CACHE_DIR names another
// folder; CUDABRIDGE_PTX_CACHE_BYTES sets the size (default 512 MiB). A privileged process never
// uses it. No LLVM here: the bytes are opaque.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace cudabridge::nv::ptx {

class jit_cache {
public:
    // The process's cache; nullptr when it is off or its folder cannot be trusted (said once on
    // stderr for the latter).
    static jit_cache* shared();
    // A cache in `folder` holding at most `max_bytes` (tests).
    jit_cache(std::filesystem::path folder, uint64_t max_bytes);

    // The entry's machine code, verified; nullopt when there is none or it was damaged (then
    // deleted).
    std::optional<std::string> load(const std::string& key);
    // Written whole under a temporary name and renamed, so that a reader sees all of it or none.
    void store(const std::string& key, std::string_view object);

    const std::filesystem::path& folder() const { return folder_; }

    // What this process's kernels did: loaded from the cache, stored after compiling, and
    // entries found damaged.
    static std::atomic<uint64_t> loaded, stored, damaged;

private:
    std::filesystem::path entry(const std::string& key) const;
    void keep_under_size();

    std::filesystem::path folder_;
    uint64_t max_bytes_;
};

}  // namespace cudabridge::nv::ptx

// CUDABRIDGE_VISIBLE_DEVICES: which connected eGPUs a program's runtime uses, and in which order,
// as CUDA_VISIBLE_DEVICES does for CUDA. A comma-separated list; each entry is an index among the
// connected eGPUs (in the order `cudabridge-cli info` lists them) or a GPU UUID ("GPU-...", or a
// unique prefix of it with at least 8 characters after "GPU-"). Unlike CUDA, an entry that names
// no device is an error, never a silently shortened list.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudabridge::host {

inline constexpr const char* visible_devices_variable = "CUDABRIDGE_VISIBLE_DEVICES";

struct visible_entry {
    int index = -1;    // an index among the connected eGPUs, or -1
    std::string uuid;  // else a UUID prefix, lower case, "GPU-" included
};

// The entries of a value; nullopt when unset (every device), empty for "" (none). Throws
// core::error(CB_ERR_INVALID_ARGUMENT) naming the variable for a malformed value.
std::optional<std::vector<visible_entry>> parse_visible_devices(const char* text);

bool names_a_uuid(const std::vector<visible_entry>& entries);

// Which of the connected eGPUs the entries select, as positions in `uuids` (one per connected
// eGPU, in order; they may be empty when no entry is a UUID). Throws core::error
// (CB_ERR_INVALID_ARGUMENT) for an entry that names no device, names several, or repeats one.
std::vector<size_t> resolve_visible_devices(const std::vector<visible_entry>& entries,
                                            const std::vector<std::string>& uuids);

}  // namespace cudabridge::host
